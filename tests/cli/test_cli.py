"""The headless CLI: the same catalog and dispatcher as the app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # --no-mcp: these tests are about the built-ins; the MCP suite covers mcp.json.
    return subprocess.run([sys.executable, "-m", "echo_desk", "--no-mcp", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})}, cwd=cwd, stdin=subprocess.DEVNULL)


def test_tools_list_json_shows_builtins_with_their_state() -> None:
    out = cli("tools", "list", "--json")
    rows = {r["name"]: r for r in json.loads(out.stdout)["tools"]}
    assert rows["echo_text"] == {**rows["echo_text"], "source": "builtin", "risk": "read", "enabled": True,
                                 "ready": True, "breaker": "closed"}
    assert rows["write_file"]["risk"] == "write" and rows["run_command"]["risk"] == "exec"


def test_call_prints_the_envelope_and_exit_code_follows_ok(tmp_path: Path) -> None:
    ok = cli("call", "echo_text", "--args", '{"text": "hello"}')
    assert ok.returncode == 0 and json.loads(ok.stdout)["content"] == "hello"
    bad = cli("call", "echo_text", "--args", '{"text": ""}')
    assert bad.returncode == 1 and json.loads(bad.stdout)["error_kind"] == "validation"


def test_call_without_a_terminal_or_flag_denies_writes(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    out = cli("call", "write_file", "--args", json.dumps({"path": "x.txt", "content": "hi"}),
              "--workspace", str(tmp_path))
    assert out.returncode == 1 and json.loads(out.stdout)["error_kind"] == "rejected"
    assert str(target) in out.stderr  # the full target was shown before the answer
    assert not target.exists()
    yes = cli("call", "write_file", "--args", json.dumps({"path": "x.txt", "content": "hi"}),
              "--workspace", str(tmp_path), "--yes")
    assert yes.returncode == 0 and target.read_text() == "hi"


def test_a_tool_disabled_in_settings_is_refused_by_the_cli(tmp_path: Path) -> None:
    config = Path(os.environ["ECHO_DESK_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"schema_version": 1, "tools": {"echo_text": {"enabled": False}}}))
    out = cli("call", "echo_text", "--args", '{"text": "x"}')
    assert json.loads(out.stdout)["error_kind"] == "disabled"
    listed = {r["name"]: r for r in json.loads(cli("tools", "list", "--json").stdout)["tools"]}
    assert listed["echo_text"]["enabled"] is False


def test_ask_without_a_model_says_so_clearly(tmp_path: Path) -> None:
    out = cli("ask", "hi", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
              "--workspace", str(tmp_path))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert "127.0.0.1:9" in out.stderr


def test_the_note_on_servers_awaiting_approval_names_each_command() -> None:
    from echo_desk.cli.with_runtime import awaiting_note

    assert awaiting_note(["memory"]) == "1 MCP server awaits approval: echo-desk mcp approve memory"
    assert awaiting_note(["a", "b"]) == ("2 MCP servers await approval: echo-desk mcp approve a; "
                                         "echo-desk mcp approve b")
