"""Test-wide guards: no Qt when asked, no real user folders, no network beyond loopback."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from importlib.abc import MetaPathFinder
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests draw the same examples in every run, so `make test` cannot pass or fail by luck;
# random exploration is a separate job (HYPOTHESIS_PROFILE=explore, scripts/fuzz_shell_parser.py).
hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


class _BlockQt(MetaPathFinder):
    """Makes PySide6/qasync unimportable, to prove the engine does not need them."""

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname.split(".")[0] in ("PySide6", "qasync", "shiboken6"):
            raise ImportError(f"{fullname} is blocked in this test run (ECHO_DESK_BLOCK_QT=1)")
        return None


if os.environ.get("ECHO_DESK_BLOCK_QT") == "1":
    sys.meta_path.insert(0, _BlockQt())

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        if not (host in ("localhost", "::1") or str(host).startswith("127.")):
            raise OSError(f"tests may only reach loopback, not {host!r}")
    return _real_connect(self, address)


socket.socket.connect = _loopback_only  # type: ignore[method-assign]


def _no_system_keyring() -> None:
    """The app and the CLI install the system keyring when there is one: tests never touch a
    developer's real keyring (and a test's in-memory backend class is never auto-detected)."""
    import keyring
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())


_no_system_keyring()


@pytest.fixture
def system_keyring() -> Iterator[Any]:
    """A machine with a keyring: an in-memory backend that the app and the CLI find as the system's."""
    import keyring

    from tests.providers.test_secrets_keyring import MemoryKeyring

    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("echo-desk-home")
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("ECHO_DESK_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("ECHO_DESK_CACHE_DIR", os.environ.get("ECHO_DESK_TEST_CACHE_DIR", str(base / "cache")))
    from echo_desk.tools import secrets

    secrets.install_secret_store(secrets.MemorySecretStore())


@pytest.fixture
def chinese() -> Iterator[None]:
    """Echo Desk's own language set to Simplified Chinese for the test, the one before put back
    (the Qt pages' own: ``tests/ui/conftest.py``)."""
    from echo_desk.i18n import current_language, set_language

    before = current_language()
    set_language("zh_CN")
    try:
        yield
    finally:
        set_language(before)
