"""A downstream MCP server that dies under a call, answers with what is no MCP result, or writes a
line past the cap: the client of the gateway is answered with an error that says so within a
deadline, the audit holds each call, and the session goes on (the server started again for the
next call). A real gateway process, the official Python SDK client, the in-repo fault server."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from echo_desk.mcp.config import config_path
from echo_desk.store.settings import ToolPolicy
from tests.mcp.helpers import FAULT_SERVER, wait_until

from .conftest import App, gateway_command

#: Each answer must come within this (the server's own call timeout is 3 s below).
DEADLINE_SECONDS = 30
FAULTS = {  # tool: (arguments, what its answer says)
    "fault__crash": ({}, "the connection to the server was lost"),
    "fault__malformed": ({}, "the server sent a malformed result"),
    # One line of 20 MB: past the 16 MB cap.
    "fault__big": ({"chars": 20_000_000}, "the server sent a message longer than 16 MB"),
}


@pytest.fixture
def servers() -> dict[str, Any]:
    found = {"fault": {"command": sys.executable, "args": [str(FAULT_SERVER)], "timeout": 3}}
    config_path().write_text(json.dumps({"mcpServers": found}), encoding="utf-8")
    return found


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


@pytest.mark.parametrize("tool", list(FAULTS))
async def test_a_server_that_fails_under_a_call_is_answered_in_time_and_audited(
        app: App, gateway_env: dict[str, str], tool: str) -> None:
    for name in (*FAULTS, "fault__echo"):
        app.runtime.settings.set_tool(name, policy=ToolPolicy.ALWAYS)
    arguments, said = FAULTS[tool]
    command = gateway_command("cursor")
    async with Client(StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)) as client:
        result = await asyncio.wait_for(client.call_tool(tool, arguments), DEADLINE_SECONDS)
        assert result.is_error, result
        assert said in text_of(result), text_of(result)
        again = await asyncio.wait_for(client.call_tool("fault__echo", {"text": "after"}), DEADLINE_SECONDS)
        assert not again.is_error and "after" in text_of(again)
    row = app.audit(tool=tool, limit=1)[0]
    assert row["client"] == "cursor" and row["ok"] is False and row["error"], row


async def test_a_server_restarted_under_a_call_answers_the_client_in_time_and_is_audited(
        app: App, gateway_env: dict[str, str]) -> None:
    for name in ("fault__hang", "fault__echo"):
        app.runtime.settings.set_tool(name, policy=ToolPolicy.ALWAYS)
    manager = app.runtime.mcp
    assert manager is not None
    command = gateway_command("cursor")
    async with Client(StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)) as client:
        call = asyncio.ensure_future(client.call_tool("fault__hang", {"seconds": 600}))
        await wait_until(lambda: any(c["running"] for c in app.service.clients()), 30, "the call running")
        await manager.restart("fault")  # the person restarts it in Settings › MCP
        result = await asyncio.wait_for(call, DEADLINE_SECONDS)
        assert result.is_error
        # Before, it said the server "was stopped in Echo Desk", as if it were not coming back.
        assert "fault/hang: the server was restarted in Echo Desk before it answered" in text_of(result), \
            text_of(result)
        again = await asyncio.wait_for(client.call_tool("fault__echo", {"text": "after"}), DEADLINE_SECONDS)
        assert not again.is_error
    row = app.audit(tool="fault__hang", limit=1)[0]
    assert row["client"] == "cursor" and row["ok"] is False and row["error"], row
