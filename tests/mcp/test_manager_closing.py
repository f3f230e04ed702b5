"""A read or a call that comes while the manager closes (the app quits) starts no server again:
it fails with a clear error, and no process is left behind (against the in-repo fault server)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.resources import ResourceError
from echo_desk.tools import ErrorKind, ToolExecutionContext
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import server_pids, wait_until


async def _read(manager: Any) -> str:
    try:
        await manager.read_resource("f", "fault://note")
    except ResourceError as exc:
        return exc.text
    raise AssertionError("the read succeeded while the manager closed")


async def _call(manager: Any) -> str:
    ctx = ToolExecutionContext(call_id="c", tool_name="f__touch", scope_id="t")
    result = await manager.call_tool("f", "f__touch", "touch", {"n": 1}, ctx)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    return result.error


@pytest.mark.parametrize("ask", [_read, _call], ids=["resource-read", "tool-call"])
async def test_a_request_racing_the_close_starts_no_server(make_manager, mark, monkeypatch, ask) -> None:
    manager = make_manager({"f": fault_config()})
    await manager.start_all()
    assert len(server_pids(mark)) == 1
    starts = 0
    closing, release, asked = threading.Event(), threading.Event(), threading.Event()
    starting, closing_conn, ensuring = ServerConnection.start, ServerConnection.close, manager.ensure_connection

    async def counted_start(self: ServerConnection, *args: Any, **kwargs: Any) -> Any:
        nonlocal starts
        starts += 1
        return await starting(self, *args, **kwargs)

    async def held_close(self: ServerConnection, **kwargs: Any) -> None:
        # The close is held after it took the server's connection away and before it lets go
        # of the server's lock: where a request that came meanwhile used to start it again.
        closing.set()
        await wait_until(release.is_set, 20, "the request to reach the server's lock")
        await closing_conn(self, **kwargs)

    async def noted_ensure(name: str) -> Any:
        asked.set()  # the request now waits on the server's lock, in this same step of the loop
        return await ensuring(name)

    monkeypatch.setattr(ServerConnection, "start", counted_start)
    monkeypatch.setattr(ServerConnection, "close", held_close)
    monkeypatch.setattr(manager, "ensure_connection", noted_ensure)
    close = asyncio.ensure_future(manager.aclose())
    await wait_until(closing.is_set, 20, "the close to begin")
    request = asyncio.ensure_future(ask(manager))
    await wait_until(asked.is_set, 20, "the request to ask for the connection")
    release.set()
    said = await asyncio.wait_for(request, 20)
    await asyncio.wait_for(close, 20)
    assert "Echo Desk is closing" in said
    assert starts == 0, "a request that came during the close started the server again"
    assert server_pids(mark) == []
