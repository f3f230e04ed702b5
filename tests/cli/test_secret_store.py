"""The CLI keeps secrets in the system keyring when the machine has one (tests: an in-memory one)."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest

from echo_desk.cli.main import main
from echo_desk.store.secrets import KeyringSecretStore
from echo_desk.tools.secrets import MemorySecretStore, secret_store
from tests.providers.test_secrets_keyring import MemoryKeyring


@pytest.fixture
def system_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


def test_cli_selects_the_system_keyring(system_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(secret_store(), MemorySecretStore)
    assert main(["--no-mcp", "tools", "list", "--json"]) == 0
    assert isinstance(secret_store(), KeyringSecretStore)
