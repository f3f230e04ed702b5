"""A server's message that cannot be read (JSON nested past what a reader takes) is dropped by
the SDK, so the request it answered waits for its timeout: the error then says the server did
send something, and why it could not be read, instead of only "did not answer"."""

from __future__ import annotations

import sys

from echo_desk.mcp import ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.tools import ErrorKind
from tests.mcp.helpers import TINY_SERVER, get_tool
from tests.mcp.test_everything import ctx


async def test_a_call_whose_answer_cannot_be_read_says_so_at_its_timeout(make_manager, registry) -> None:
    manager = make_manager({"t": parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                                                    "env": {"TINY_DEEP": "1"}, "timeout": 2})})
    await manager.start_all()
    result = await get_tool(registry, "t__deep").execute({}, ctx("deep"))
    assert not result.success and result.error_kind is ErrorKind.TIMEOUT
    assert "did not answer within 2 s" in result.error
    assert "1 message Echo Desk could not read" in result.error and "recursion limit" in result.error
    # The session is still there, and a later call that times out for its own reasons says nothing of it.
    echo = await get_tool(registry, "t__echo").execute({"text": "still here"}, ctx("echo"))
    assert echo.success and echo.output == "still here"
    slept = await get_tool(registry, "t__sleep").execute({"seconds": 30}, ctx("sleep"))
    assert slept.error_kind is ErrorKind.TIMEOUT and "could not read" not in slept.error


async def test_a_start_whose_tool_list_cannot_be_read_says_so(make_manager) -> None:
    manager = make_manager({"t": parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                                                    "env": {"TINY_DEEP": "list"}})})
    manager.handshake_timeout = 2
    status = await manager.start("t")
    assert status.state is ServerState.ERROR
    assert status.detail.startswith("the server did not answer in time; it sent 1 message Echo Desk could not read")
    assert "recursion limit" in status.detail
