"""In the app, a client's list of its tools never waits for an MCP server still starting: it comes
without that server's tools, the audit says which were left out, and the client is told to list
again once the server has started (a real gateway process handing its session to the app, the
official Python SDK client, a real server held before ``initialize``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from echo_desk.mcp.config import config_path, parse_server
from echo_desk.store.audit import Event
from echo_desk.store.settings import ToolPolicy
from tests.mcp.helpers import TINY_SERVER, wait_until

from .conftest import App, approve_servers, gateway_command
from .test_hand_back_servers import open_gate

SLOW = {"command": "sh", "args": ["-c", '[ -p "$1" ] && read _ < "$1"; exec "$2" "$3"']}


@pytest.fixture
def servers() -> dict[str, Any]:
    found = {"quick": {"command": sys.executable, "args": [str(TINY_SERVER)]}}
    config_path().write_text(json.dumps({"mcpServers": found}), encoding="utf-8")
    return found


async def test_a_server_still_starting_in_the_app_is_left_out_recorded_and_told_later(
        app: App, gateway_env: dict[str, str], short_dir: Path) -> None:
    gate = short_dir / "gate"
    os.mkfifo(gate)
    slow = {"command": "sh", "args": [*SLOW["args"], "sh", str(gate), sys.executable, str(TINY_SERVER)]}
    approve_servers(app.runtime.settings, {"slow": slow})
    app.runtime.settings.set_tool("slow__echo", policy=ToolPolicy.ALWAYS)
    manager = app.runtime.mcp
    assert manager is not None
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    command = gateway_command("cursor")
    params = StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)
    try:
        async with Client(params, message_handler=on_message, mode="legacy") as client:
            await manager.set_server(parse_server("slow", slow), wait=False)  # added in Settings › MCP
            await wait_until(lambda: manager.status("slow").state == "starting", 30, "the slow server starting")
            first = {tool.name for tool in (await asyncio.wait_for(client.list_tools(), 10)).tools}
            assert "quick__echo" in first and "slow__echo" not in first
            await wait_until(lambda: open_gate(gate), 30, "the slow server waiting on its gate")
            await asyncio.wait_for(changed.wait(), 30)
            second = {tool.name for tool in (await client.list_tools()).tools}
            assert {"quick__echo", "slow__echo"} <= second
    finally:
        with contextlib.suppress(OSError):
            open_gate(gate)
    rows = [r for r in app.audit(client="cursor", limit=100) if r["event"] == Event.TOOLS_LISTED_WITHOUT]
    assert len(rows) == 1 and rows[0]["arguments"] == {"servers": ["slow"]}, rows
