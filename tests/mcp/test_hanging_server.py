"""A server that never answers ``initialize`` (issue 20, item 8): commands that do not need it
do not start it, the handshake is bounded, and the failure is one line, not a traceback.

Before the fix every CLI command waited ~63 s for such a server and printed a traceback.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

import echo_desk.cli.with_runtime
from echo_desk.cli.main import main
from echo_desk.cli.mcp import servers_for_call
from echo_desk.mcp import ServerState
from echo_desk.mcp.config import config_path
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import FAULT_SERVER, MARK, marked_pids, wait_until

HANDSHAKE = 2.0
#: Start-up, the bounded handshake and the bounded shutdown of the silent server, generously.
DEADLINE = HANDSHAKE + 25.0


@pytest.fixture
def silent_server(tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """mcp.json with one approved server that never answers; returns its event log."""
    log = tmp_path / "silent.log"
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)],
             "env": {"FAULT_SILENT": "1", "FAULT_LOG": str(log), MARK: mark}}
    config_path().write_text(json.dumps({"mcpServers": {"hang": entry}}), encoding="utf-8")
    assert main(["mcp", "approve", "hang", "--yes"]) == 0
    monkeypatch.setattr(echo_desk.cli.with_runtime, "CLI_HANDSHAKE_TIMEOUT", HANDSHAKE)
    return log


def test_a_command_that_needs_no_server_does_not_start_it(
    silent_server: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["call", "echo_text", "--args", '{"text": "hi"}']) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["content"] == "hi"
    assert out.err == ""
    assert not silent_server.exists(), "the server was started for a command that does not use it"


def test_listing_reports_the_silent_server_in_one_line_within_the_bound(
    silent_server: Path, mark: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    start = time.monotonic()
    assert main(["tools", "list"]) == 0
    elapsed = time.monotonic() - start
    out = capsys.readouterr()
    assert "started" in silent_server.read_text()  # it really was asked, and never answered
    assert "echo_text" in out.out  # the rest of the catalog is there
    assert out.err.splitlines() == [
        f"MCP server “hang” is failing: the server did not answer the MCP handshake within {HANDSHAKE:g} s"
    ]
    assert "Traceback" not in out.err
    assert elapsed < DEADLINE, f"tools list took {elapsed:.1f} s"
    assert marked_pids(mark) == []


def test_calling_another_tool_starts_only_that_tools_server() -> None:
    names = ["hang", "fmt", "fmt_tools"]
    assert servers_for_call("fmt__format", names) == ["fmt"]
    assert servers_for_call("fmt_tools__format", names) == ["fmt_tools"]
    assert servers_for_call("abbreviated_0123abcd", names) == names  # a hashed name: ask them all


async def test_the_manager_bounds_the_handshake_and_ends_the_process(make_manager, mark: str) -> None:
    manager = make_manager({"hang": fault_config("hang", env={"FAULT_SILENT": "1"})})
    manager.handshake_timeout = HANDSHAKE
    start = time.monotonic()
    status = await manager.start("hang")
    assert time.monotonic() - start < DEADLINE
    assert status.state is ServerState.ERROR
    assert status.detail == f"the server did not answer the MCP handshake within {HANDSHAKE:g} s"
    await wait_until(lambda: marked_pids(mark) == [], 10, "the silent server to be ended")
