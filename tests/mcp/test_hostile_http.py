"""A hostile MCP server over HTTP answers with a message that never ends (an endless JSON body,
a terabyte ``Content-Length``, an SSE event that never ends): Echo Desk reads no message past
16 MB, as from a stdio server (``line_cap``), and no event past the SDK's 1 MB, fails that server
with why, and the other servers go on. Against the SDK-less ``hostile_http_server.py`` on loopback."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from echo_desk.i18n import shown
from echo_desk.mcp import ServerState
from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.tools import ErrorKind
from tests.mcp.helpers import HERE, get_tool
from tests.mcp.test_everything import ctx
from tests.mcp.test_hostile_downstream import _rss_mb, _slowest_echo_while, _tiny

HOSTILE_HTTP_SERVER = HERE / "hostile_http_server.py"


@pytest.fixture(scope="module")
def hostile_port() -> Iterator[int]:
    proc = subprocess.Popen([sys.executable, "-S", str(HOSTILE_HTTP_SERVER)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait(10)


def _hostile(port: int, transport: str = "http") -> ServerConfig:
    path = "/sse" if transport == "sse" else "/mcp"
    return parse_server("h", {"type": transport, "url": f"http://127.0.0.1:{port}{path}", "timeout": 60})


async def _flood(make_manager: Any, registry: Any, config: ServerConfig, how: str, mb: int = 200) -> tuple[Any, Any]:
    """Calls ``flood`` (``mb`` MB that never end) while calling the other server ``t``; returns the
    call's result and the server's status, after checking memory, time and the other server."""
    manager = make_manager({"t": _tiny(), "h": config})
    await manager.start_all()
    assert manager.status("h").state is ServerState.CONNECTED, manager.status("h").detail
    before = _rss_mb()
    started = time.monotonic()
    calling = asyncio.ensure_future(get_tool(registry, "h__flood").execute({"how": how, "mb": mb}, ctx("flood")))
    slowest = await _slowest_echo_while(registry, calling)
    grew_mb, took = _rss_mb() - before, time.monotonic() - started
    print(f"held {grew_mb:.0f} MB, took {took:.1f} s, another server's call waited {slowest:.1f} s")
    assert took < 30, f"the call waited for its time-out ({took:.0f} s)"
    assert grew_mb < 64, f"the unending message held {grew_mb:.0f} MB"
    assert slowest < 3, f"a call to another server waited {slowest:.1f} s"
    assert (await get_tool(registry, "t__echo").execute({"text": "still"}, ctx("echo"))).output == "still"
    return calling.result(), manager.status("h")


@pytest.mark.parametrize("how", ["json", "length"])
async def test_an_http_answer_that_never_ends_fails_its_server_and_others_go_on(
        make_manager, registry, hostile_port, how) -> None:
    # The SDK reads a JSON answer whole (``response.aread()``), with no limit: the endless body
    # grew memory until the call's time-out (hundreds of MB in seconds). Past 16 MB it is failed.
    result, status = await _flood(make_manager, registry, _hostile(hostile_port), how)
    assert not result.success
    assert status.state is ServerState.ERROR
    assert "longer than 16 MB" in status.detail and "not read" in status.detail, status.detail
    assert "longer than 16 MB" in (result.error or ""), result.error
    # Echo Desk disconnected from it: it was not "stopped" (it runs elsewhere).
    assert shown(result.error).startswith("Echo Desk ended the connection to the MCP server “h”: "), shown(result.error)


@pytest.mark.parametrize("how", ["gzip", "gzip-event"])
async def test_a_compressed_answer_is_not_inflated(make_manager, registry, hostile_port, how) -> None:
    # 100 KB of gzip, asked for uncompressed: the client inflated it whole, 100 MB (and the JSON
    # reader as much again), under no cap. It is refused unread. (As an event, the SDK's reader
    # cut it at 1 MB, but only after each 64 KB piece was inflated whole: refused too.)
    result, status = await _flood(make_manager, registry, _hostile(hostile_port), how, mb=100)
    assert not result.success
    assert status.state is ServerState.ERROR
    assert "compressed" in status.detail and "not read" in status.detail, status.detail


async def test_a_handshake_answer_that_never_ends_fails_the_start_with_why(make_manager, hostile_port) -> None:
    # Before the cap, the start waited out the handshake time-out holding all the server sent.
    manager = make_manager({"h": parse_server("h", {"type": "http", "url": f"http://127.0.0.1:{hostile_port}/mcp?endless"})})
    before = _rss_mb()
    status = await manager.start("h")
    assert status.state is ServerState.ERROR
    assert "longer than 16 MB" in status.detail, status.detail
    assert _rss_mb() - before < 64


async def test_an_sse_post_answer_that_never_ends_fails_its_server(make_manager, registry, hostile_port) -> None:
    # The older SSE transport reads the answer to each POST whole too.
    result, status = await _flood(make_manager, registry, _hostile(hostile_port, "sse"), "json")
    assert not result.success
    assert status.state is ServerState.ERROR
    assert "longer than 16 MB" in status.detail, status.detail


@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("how", ["event", "lines"])
async def test_an_event_past_the_sdks_limit_fails_its_server_with_why(
        make_manager, registry, hostile_port, how, transport) -> None:
    # One event of 200 MB that never ends (one endless ``data:`` line, or ``data:`` lines with no
    # blank line). The SDK's reader holds no event past 1 MB, but then said only that the
    # connection closed: the person read "The connection to the MCP server “h” was lost.", the
    # model "h/flood: the connection to the server was lost". Now the limit is named, the server
    # is shown in error with it, and the next call connects again.
    result, status = await _flood(make_manager, registry, _hostile(hostile_port, transport), how)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert result.error.startswith("h/flood: ") and "event longer than 1 MB" in result.error, result.error
    assert shown(result.error).startswith("Echo Desk ended the connection to the MCP server “h”: "), shown(result.error)
    assert "1 MB" in shown(result.error), shown(result.error)
    assert status.state is ServerState.ERROR
    assert "event longer than 1 MB" in status.detail and "disconnected" in status.detail, status.detail
    again = await get_tool(registry, "h__echo").execute({"text": "back"}, ctx("echo"))
    assert again.output == "back", again.error


async def test_an_ordinary_http_answer_still_arrives(make_manager, registry, hostile_port) -> None:
    manager = make_manager({"h": _hostile(hostile_port)})
    assert (await manager.start("h")).state is ServerState.CONNECTED
    assert (await get_tool(registry, "h__echo").execute({"text": "hi"}, ctx("echo"))).output == "hi"
    # 11 MB in one answer: under the cap, an answer like any other (the result's own caps apply).
    long = await get_tool(registry, "h__echo").execute({"text": "11MB"}, ctx("echo"))
    assert long.success and long.output.startswith("xxx"), long.error
    assert manager.status("h").state is ServerState.CONNECTED
