"""mcp.json parsing and saving, keyring references, and imports from other clients."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from echo_desk.mcp import ConfigError, ImportAction, apply_import, load_config, preview_import, save_config
from echo_desk.mcp.config import MissingSecretError, config_path, parse_config, parse_server, update_config
from echo_desk.tools.secrets import secret_store

CLAUDE = {
    "mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]},
        "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_plaintext"}},
        "broken": {"args": ["no command"]},
    },
    "globalShortcut": "Ctrl+Space",
}


def write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_parse_all_transports_and_round_trip() -> None:
    servers = parse_config({"mcpServers": {
        "local": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}, "enabled": False},
        "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": {"keyring": "tok"}}},
        "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
        "guessed": {"url": "https://y.example/mcp"},
    }})
    assert servers["local"].transport == "stdio" and not servers["local"].enabled
    assert servers["remote"].headers == {"Authorization": {"keyring": "tok"}}
    assert servers["legacy"].transport == "sse" and servers["guessed"].transport == "http"
    save_config(servers)
    assert load_config() == servers
    saved = json.loads(config_path().read_text())
    assert saved["mcpServers"]["remote"]["headers"]["Authorization"] == {"keyring": "tok"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"command": ""}, "needs a command"),
        ({"command": "x", "args": "not a list"}, "args"),
        ({"type": "ws", "url": "ws://x"}, "unknown type"),
        ({"type": "http", "url": "file:///etc/passwd"}, r"http\(s\) url"),
        ({"command": "x", "env": {"K": ["list"]}}, "env.K"),
        ({"command": "x", "timeout": -1}, "timeout"),
    ],
)
def test_bad_entries_get_clear_errors(raw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_server("s", raw)


def test_broken_file_raises_and_is_not_overwritten() -> None:
    config_path().write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config()
    assert config_path().read_text() == "{not json"


def test_keyring_references_resolve_at_start_and_fail_clearly() -> None:
    cfg = parse_server("s", {"command": "x", "env": {"TOKEN": {"keyring": "s.token"}, "PLAIN": "p"}})
    with pytest.raises(MissingSecretError, match=r"s\.token"):
        cfg.resolved_env()
    secret_store().set("s.token", "v")
    assert cfg.resolved_env() == {"TOKEN": "v", "PLAIN": "p"}


def test_claude_import_preview_then_apply_moves_secrets_to_keyring(tmp_path: Path) -> None:
    save_config({"filesystem": parse_server("filesystem", {"command": "npx", "args": ["old"]})})
    source = write(tmp_path / "claude_desktop_config.json", CLAUDE)
    preview = preview_import(source)
    assert preview.source_kind == "claude"
    by_name = {item.name: item for item in preview.items}
    assert by_name["filesystem"].action is ImportAction.CHANGE and "args" in by_name["filesystem"].reason
    assert by_name["github"].action is ImportAction.ADD
    assert by_name["github"].to_keyring == ("env.GITHUB_PERSONAL_ACCESS_TOKEN",)
    assert by_name["broken"].action is ImportAction.SKIP and "command" in by_name["broken"].reason
    assert "ghp_plaintext" not in repr(preview)
    assert config_path().read_text().count("old") == 1  # the preview wrote nothing

    written = apply_import(preview)
    assert sorted(written) == ["filesystem", "github"]
    text = config_path().read_text()
    assert "ghp_plaintext" not in text
    assert secret_store().get("mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN") == "ghp_plaintext"
    assert load_config()["github"].resolved_env() == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_plaintext"}
    # Importing the same file again changes nothing.
    again = preview_import(source)
    assert {i.name: i.action for i in again.items}["github"] is ImportAction.SAME


def test_plain_import_keeps_values_when_keyring_not_chosen(tmp_path: Path) -> None:
    source = write(tmp_path / ".cursor" / "mcp.json", {"mcpServers": {"g": {"command": "x", "env": {"K": "v"}}}})
    preview = preview_import(source, use_keyring=False)
    assert preview.source_kind == "cursor"
    apply_import(preview)
    assert load_config()["g"].env == {"K": "v"}


def test_vscode_servers_key_and_input_variables(tmp_path: Path) -> None:
    source = write(tmp_path / ".vscode" / "mcp.json", {
        "inputs": [{"id": "token", "type": "promptString", "password": True}],
        "servers": {
            "gh": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${input:token}"}},
            "local": {"type": "stdio", "command": "node", "args": ["s.js"], "envFile": "${workspaceFolder}/.env"},
            "py": {"type": "stdio", "command": "python", "args": ["-m", "srv"]},
        },
    })
    preview = preview_import(source)
    assert preview.source_kind == "vscode"
    by_name = {item.name: item for item in preview.items}
    assert by_name["gh"].needs_secrets == ("mcp.gh.headers.Authorization",)
    assert by_name["local"].action is ImportAction.SKIP and "envFile" in by_name["local"].reason
    assert by_name["py"].action is ImportAction.ADD and by_name["py"].config.transport == "stdio"
    assert preview.counts == {"add": 2, "change": 0, "same": 0, "skip": 1}
    apply_import(preview, names={"py"})
    assert set(load_config()) == {"py"}


def test_processes_changing_mcp_json_at_once_lose_none_of_each_others_servers(tmp_path: Path) -> None:
    # The app's settings page, `echo-desk mcp import` and `echo-desk gateway install` for two clients.
    from tests.at_once import run_at_once

    per_process, names = 25, ["app", "import", "cursor", "claude-code"]
    setup = "from echo_desk.mcp.config import parse_server, update_config\n"
    work = (f"for i in range({per_process}):\n"
            "    name = f'{sys.argv[2]}-{i}'\n"
            "    update_config(lambda servers: servers.update({name: parse_server(name, {'command': 'true'})}))\n")
    assert run_at_once(setup, work, tmp_path / "gate", names) == [0] * len(names)
    assert sorted(load_config()) == sorted(f"{name}-{i}" for name in names for i in range(per_process))


def test_a_change_is_not_saved_over_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": ')
    with pytest.raises(ConfigError, match="not valid JSON"):
        update_config(lambda servers: servers.update({"t": parse_server("t", {"command": "true"})}), path)
    assert path.read_text() == '{"mcpServers": '
