"""``echo-desk mcp login`` / ``logout`` against a guarded server: the URL printed in full, the
browser opened only when there is a display, the tokens kept and revoked."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from echo_desk.cli.main import main
from echo_desk.mcp.config import parse_server, save_config
from echo_desk.mcp.oauth import SignIns
from tests.mcp.oauth.browser import Browser
from tests.mcp.oauth.conftest import World
from tests.providers.test_secrets_keyring import MemoryKeyring


def _wait(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return value


def _configured(world: World) -> None:
    save_config({"remote": world.config()})
    assert main(["mcp", "approve", "remote", "--yes"]) == 0


def test_login_without_a_display_prints_the_url(world: World, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch,
                                                system_keyring: MemoryKeyring) -> None:
    # login and logout are two commands: the sign-in passes between them through the keyring.
    world.use_authlib()
    _configured(world)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    capsys.readouterr()
    codes: list[int] = []
    login = threading.Thread(target=lambda: codes.append(main(["mcp", "login", "remote"])))
    login.start()
    printed = ""

    def url_printed() -> str | None:
        nonlocal printed
        printed += capsys.readouterr().out
        found = re.search(r"^  (http://\S+)$", printed, re.M)
        return found.group(1) if found else None

    url = _wait(url_printed, "the sign-in address on stdout")
    assert url.startswith(f"{world.authlib.issuer}/authorize?")
    browser = Browser()
    asyncio.run(browser.open(url))
    login.join(30)
    browser.join()
    assert codes == [0], printed + capsys.readouterr().err
    assert opened == []  # no display: nothing tried to open a browser
    assert "signed in to remote with " + world.authlib.issuer in printed + capsys.readouterr().out
    kept = SignIns().current("remote")
    assert kept is not None and kept.tokens is not None

    assert main(["mcp", "logout", "remote"]) == 0
    assert "revoked at the service" in capsys.readouterr().out
    assert kept.tokens.access_token in world.authlib.state.revoked
    assert SignIns().current("remote") is None


def test_login_refuses_a_stdio_server_and_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    save_config({"local": parse_server("local", {"command": "true"})})
    assert main(["mcp", "login", "nobody"]) == 2
    assert "no MCP server named “nobody”" in capsys.readouterr().err
    assert main(["mcp", "login", "local"]) == 2
    assert "has no sign-in" in capsys.readouterr().err
