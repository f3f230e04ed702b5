"""``echo-desk gateway install|uninstall --client NAME [--dry-run]`` on a fake home folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from echo_desk.cli.main import main
from echo_desk.mcp.config import config_path, load_config
from tests.mcp.connected.homes import make_home
from tests.providers.test_secrets_keyring import MemoryKeyring


def test_dry_run_prints_the_diff_and_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = make_home(home)
    before = where["cursor"].read_bytes()
    assert main(["gateway", "install", "--client", "cursor", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert '-      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_token"}' in out
    assert '"args": ["gateway", "--client", "cursor"]' in out
    assert "move  github: added to Echo Desk (sandboxed)" in out
    assert "stay  remote: uses ${env:EXAMPLE_TOKEN}" in out
    assert where["cursor"].read_bytes() == before
    assert not config_path().exists()


def test_install_says_what_it_did_and_uninstall_puts_it_back(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = make_home(home)
    before = where["claude-desktop"].read_bytes()
    assert main(["gateway", "install", "--client", "claude-desktop"]) == 0
    out = capsys.readouterr().out
    backup = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("backup: "))
    assert Path(backup).read_bytes() == before
    assert "approve its first start when Echo Desk asks, or now: echo-desk mcp approve filesystem" in out
    assert set(json.loads(where["claude-desktop"].read_text())["mcpServers"]) == {"echo-desk"}
    assert "filesystem" in load_config()
    assert main(["gateway", "uninstall", "--client", "claude-desktop", "--dry-run"]) == 0
    assert "remove from Echo Desk: filesystem" in capsys.readouterr().out
    assert "filesystem" in load_config()  # the dry run changed nothing
    assert main(["gateway", "uninstall", "--client", "claude-desktop"]) == 0
    assert where["claude-desktop"].read_bytes() == before
    assert "filesystem" not in load_config()


def test_uninstall_with_nothing_to_undo_fails_clearly(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_home(home)
    assert main(["gateway", "uninstall", "--client", "zed"]) == 1
    assert "nothing to undo" in capsys.readouterr().err


def test_an_unparseable_file_is_reported_and_left_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = make_home(home)
    where["zed"].write_text('{"context_servers": {"a": {"command": "x"}}')
    assert main(["gateway", "install", "--client", "zed"]) == 1
    assert "line 1" in capsys.readouterr().err
    assert where["zed"].read_text() == '{"context_servers": {"a": {"command": "x"}}'


def test_a_file_without_a_last_line_feed_gets_patchs_marker_and_the_dry_run_names_both_files(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = make_home(home)
    text = where["cursor"].read_text().rstrip("\n")
    where["cursor"].write_text(text)  # as many editors leave a JSON file
    assert main(["gateway", "install", "--client", "cursor", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # The old last line (kept or removed) is followed by patch's marker, never by the next line.
    last = re.escape(text.splitlines()[-1])
    assert re.search(rf"^[ -]{last}\n\\ No newline at end of file\n", out, re.MULTILINE), out
    assert "\n\n" not in out  # and the diff is not followed by an empty line
    assert f"dry run: nothing written to {where['cursor']} or to Echo Desk's {config_path()}" in out


def test_install_puts_a_moved_secret_in_the_system_keyring(
        home: Path, capsys: pytest.CaptureFixture[str], system_keyring: MemoryKeyring) -> None:
    # The command used to keep it in its own memory only: mcp.json named a keyring entry that
    # did not exist, and the server started without its token.
    where = make_home(home)
    assert main(["gateway", "install", "--client", "cursor"]) == 0
    assert "to the keyring: env.GITHUB_PERSONAL_ACCESS_TOKEN" in capsys.readouterr().out
    ref = "mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"
    assert load_config()["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": {"keyring": ref}}
    assert system_keyring.values[("echo-desk", ref)] == "ghp_cursor_token"
    assert "ghp_cursor_token" not in where["cursor"].read_text()


def test_without_a_keyring_install_leaves_a_secret_in_mcp_json_and_says_so(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_home(home)
    assert main(["gateway", "install", "--client", "cursor", "--dry-run"]) == 0
    said = ("left in Echo Desk's mcp.json, not the keyring (this machine has none): "
            "env.GITHUB_PERSONAL_ACCESS_TOKEN")
    assert said in capsys.readouterr().out
    assert main(["gateway", "install", "--client", "cursor"]) == 0
    assert said in capsys.readouterr().out
    assert load_config()["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_token"}
