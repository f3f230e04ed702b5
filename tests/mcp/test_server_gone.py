"""An HTTP MCP server that goes away (its process killed, its port closed) is said to have gone
away: it "could not be reached" or "closed the connection", never "was stopped" as if the person
had stopped it; a server the person stopped under a call is said to have been stopped in Echo
Desk. One that goes away between calls is shown gone as soon as its standing event stream ends,
not at the next call. Against ``hostile_http_server.py`` on loopback, one process per test (each is killed)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from echo_desk.i18n import shown
from echo_desk.mcp import McpEvent, ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.tools import ErrorKind, ToolResult
from tests.mcp.helpers import get_tool, wait_until
from tests.mcp.test_everything import ctx
from tests.mcp.test_hostile_http import HOSTILE_HTTP_SERVER, _hostile

DEADLINE = 30.0


@pytest.fixture
def server() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-S", str(HOSTILE_HTTP_SERVER)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(10)


async def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    return (await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), DEADLINE)).strip()


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(10)


async def _connected(make_manager: Any, proc: subprocess.Popen[str], transport: str) -> Any:
    manager = make_manager({"h": _hostile(int(await _line(proc)), transport)})
    assert (await manager.start("h")).state is ServerState.CONNECTED
    return manager


async def _in_flight(registry: Any, proc: subprocess.Popen[str]) -> asyncio.Future[ToolResult]:
    """A call the server has begun to answer (1 MB, then it holds the answer open)."""
    call = asyncio.ensure_future(get_tool(registry, "h__flood").execute({"how": "json", "mb": 1}, ctx("flood")))
    assert await _line(proc) == "flooding"
    return call


def _says_not_stopped(text: str) -> None:
    assert "stopped" not in text and "All connection attempts failed" not in text, text


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_server_killed_between_calls_could_not_be_reached(make_manager, registry, server, transport) -> None:
    # Before: the call said "The connection to the MCP server “h” was lost." (true, but not what
    # happened) and the next one "The MCP server “h” is not available: All connection attempts
    # failed", the HTTP client's English.
    manager = await _connected(make_manager, server, transport)
    port = manager.config_of("h").url.split(":")[2].split("/")[0]
    _kill(server)
    result = await asyncio.wait_for(get_tool(registry, "h__echo").execute({"text": "hi"}, ctx("echo")), DEADLINE)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    _says_not_stopped(shown(result.error))
    # Streamable HTTP: the call's own request found nothing at the port. The older SSE transport:
    # its event stream had ended (the server closed it) before the call was sent, and the call
    # says so, or, once the row had said so, the call connected again and found nothing there.
    expected = ("could not be reached",) if transport == "http" else ("closed the connection", "could not be reached")
    assert any(e in result.error and e in shown(result.error) for e in expected), shown(result.error)
    assert manager.status("h").state is ServerState.ERROR
    _says_not_stopped(shown(manager.status("h").detail))
    again = await asyncio.wait_for(get_tool(registry, "h__echo").execute({"text": "hi"}, ctx("echo")), DEADLINE)
    assert not again.success
    assert f"could not be reached at http://127.0.0.1:{port}" in shown(again.error), shown(again.error)
    _says_not_stopped(shown(again.error))
    assert f"could not be reached at http://127.0.0.1:{port}" in shown(manager.status("h").detail)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_server_killed_under_a_call_closed_the_connection(make_manager, registry, server, transport) -> None:
    manager = await _connected(make_manager, server, transport)
    call = await _in_flight(registry, server)
    _kill(server)
    result = await asyncio.wait_for(call, DEADLINE)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert result.error == "h/flood: the server closed the connection before it answered", result.error
    assert shown(result.error) == "The MCP server “h” closed the connection before it answered."
    status = manager.status("h")
    assert status.state is ServerState.ERROR and shown(status.detail) == "the server closed the connection"


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_server_stopped_under_a_call_was_stopped_in_echo_desk(make_manager, registry, server, transport) -> None:
    manager = await _connected(make_manager, server, transport)
    call = await _in_flight(registry, server)
    assert (await manager.stop("h")).state is ServerState.STOPPED
    result = await asyncio.wait_for(call, DEADLINE)
    assert not result.success
    assert shown(result.error) == "The MCP server “h” was stopped in Echo Desk before it answered.", result.error


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_server_restarted_under_a_call_was_restarted_in_echo_desk(make_manager, registry, server,
                                                                          transport) -> None:
    # Before, the call said the server "was stopped", as if it were not coming back.
    manager = await _connected(make_manager, server, transport)
    call = await _in_flight(registry, server)
    assert (await manager.restart("h")).state is ServerState.CONNECTED
    result = await asyncio.wait_for(call, DEADLINE)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert result.error == ("h/flood: the server was restarted in Echo Desk before it answered; "
                            "call again to retry"), result.error
    assert shown(result.error) == "The MCP server “h” was restarted in Echo Desk before it answered."


async def _line_is(proc: subprocess.Popen[str], wanted: str) -> None:
    """Reads the server's lines until ``wanted``, all under the deadline."""

    async def read() -> None:
        while (line := await _line(proc)) != wanted:
            assert line, f"the server ended before it printed {wanted!r}"

    await asyncio.wait_for(read(), DEADLINE)


@pytest.mark.parametrize(("transport", "expected"), [
    # Streamable HTTP with a standing GET stream: the stream ends, the ping after it finds no one
    # listening, or its kept-alive connection cut off.
    ("http", ("the server could not be reached at http://127.0.0.1:", "the server closed the connection")),
    # The older SSE transport: its one event stream ended, so the connection did.
    ("sse", ("the server closed the connection",)),
])
async def test_a_server_killed_while_idle_is_shown_gone_soon(make_manager, server, transport, expected) -> None:
    # Before: its row said "Connected" until a call failed (the SDK's transports end the session,
    # or give up opening the stream again, without a word).
    port = int(await _line(server))
    path = "/mcp?standing" if transport == "http" else "/sse"
    manager = make_manager({"h": parse_server("h", {"type": transport, "url": f"http://127.0.0.1:{port}{path}"})})
    events: list[McpEvent] = []
    manager.subscribe(events.append)
    assert (await manager.start("h")).state is ServerState.CONNECTED
    if transport == "http":
        await _line_is(server, "standing")  # the stream is open
    _kill(server)
    status = await wait_until(lambda: (s := manager.status("h")).state is ServerState.ERROR and s,
                              timeout=DEADLINE, what="the server shown gone")
    assert shown(status.detail).startswith(expected), shown(status.detail)  # str.startswith takes a tuple
    _says_not_stopped(shown(status.detail))
    # The settings page repaints on events: one said so.
    assert any(e.kind == "status" and e.status.state is ServerState.ERROR for e in events)


async def test_a_server_that_ends_its_standing_stream_and_is_there_stays_connected(make_manager, registry,
                                                                                   server) -> None:
    # A server may end its standing stream and still be there (the SDK opens it again): the one
    # ping after the end is answered, and nothing changes.
    port = int(await _line(server))
    manager = make_manager({"h": parse_server("h", {"type": "http", "url": f"http://127.0.0.1:{port}/mcp?brief"})})
    assert (await manager.start("h")).state is ServerState.CONNECTED
    await _line_is(server, "brief")
    await _line_is(server, "ping")
    result = await asyncio.wait_for(get_tool(registry, "h__echo").execute({"text": "hi"}, ctx("echo")), DEADLINE)
    assert result.success and result.output == "hi", result.error
    assert manager.status("h").state is ServerState.CONNECTED, manager.status("h").detail
