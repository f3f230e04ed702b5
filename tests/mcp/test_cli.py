"""The headless CLI loads the same mcp.json and sees the same MCP tools, approvals and pins."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from echo_desk.cli.main import main
from echo_desk.mcp.config import config_path
from echo_desk.store.secrets import KeyringSecretStore
from tests.mcp.helpers import TINY_SERVER
from tests.providers.test_secrets_keyring import MemoryKeyring


@pytest.fixture
def tiny_config(system_keyring: MemoryKeyring) -> None:
    entry = {"command": sys.executable, "args": ["-S", str(TINY_SERVER)], "env": {"TOKEN": {"keyring": "t.token"}}}
    config_path().write_text(json.dumps({"mcpServers": {"t": entry}}), encoding="utf-8")
    KeyringSecretStore().set("t.token", "v")


def test_cli_lists_approves_and_calls_mcp_tools(tiny_config, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "list"]) == 0
    assert "Waiting for your approval to start" in capsys.readouterr().out
    assert main(["tools", "list", "--json"]) == 0
    listed = capsys.readouterr()
    assert not [row for row in json.loads(listed.out)["tools"] if row["source"] == "mcp:t"]
    # Why its tools are missing, and what to do: on stderr and as a field.
    assert json.loads(listed.out)["mcp_awaiting_approval"] == ["t"]
    assert "1 MCP server awaits approval: echo-desk mcp approve t" in listed.err

    assert main(["mcp", "approve", "t", "--yes"]) == 0
    shown = capsys.readouterr().out
    assert str(TINY_SERVER) in shown and "TOKEN" in shown and "approved" in shown

    assert main(["tools", "list", "--json"]) == 0
    listed = capsys.readouterr()
    rows = {row["name"]: row for row in json.loads(listed.out)["tools"]}
    assert json.loads(listed.out)["mcp_awaiting_approval"] == [] and "awaits approval" not in listed.err
    assert rows["t__echo"]["source"] == "mcp:t" and rows["t__echo"]["risk"] == "exec"
    assert main(["call", "t__echo", "--args", '{"text": "from the cli"}', "--yes"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["content"] == "from the cli"
    assert "server:" in out.err and str(TINY_SERVER) in out.err  # the approval showed the server
    assert main(["--no-mcp", "tools", "list", "--json"]) == 0
    assert "t__echo" not in capsys.readouterr().out


def test_cli_import_previews_then_applies(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          system_keyring: MemoryKeyring) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"x": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "secret"}}}}))
    assert main(["mcp", "import", str(source)]) == 0
    assert "  add    x" in capsys.readouterr().out and not config_path().exists()
    assert main(["mcp", "import", str(source), "--apply"]) == 0
    assert "secret" not in config_path().read_text()
    assert system_keyring.values[("echo-desk", "mcp.x.env.K")] == "secret"  # kept where it outlives the command


def test_without_a_keyring_an_imported_secret_stays_in_mcp_json_and_the_preview_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A value moved to a store that forgets it at exit would be lost: the server would start without it.
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"x": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "secret"}}}}))
    assert main(["mcp", "import", str(source)]) == 0
    assert "left in mcp.json (no system keyring): env.K" in capsys.readouterr().out
    assert main(["mcp", "import", str(source), "--apply"]) == 0
    assert json.loads(config_path().read_text())["mcpServers"]["x"]["env"] == {"K": "secret"}


def test_an_approval_that_cannot_be_saved_says_so_and_changes_nothing(tiny_config, monkeypatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import errno
    import os

    from echo_desk.store.settings import SettingsStore

    def full_disk(path, data):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("echo_desk.store.settings.write_private", full_disk)
    assert main(["mcp", "approve", "t", "--yes"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "Echo Desk could not save this change, so it was not made: the disk is full."
    monkeypatch.undo()
    assert SettingsStore.in_dir(config_path().parent).current.mcp_approved == {}
