"""A call on the manager's own loop (a gateway's client is served there) costs no extra turns of
the loop: it runs in the caller's task, and a line to the server goes out without yielding."""

from __future__ import annotations

import asyncio
import os
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from anyio._backends._asyncio import StreamReaderWrapper, StreamWriterWrapper
from mcp.client.stdio import StdioServerParameters

from echo_desk.mcp import ServerState
from echo_desk.mcp.stdio_transport import _Wire
from echo_desk.tools import ToolExecutionContext
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import get_tool


def _ctx() -> ToolExecutionContext:
    return ToolExecutionContext(call_id="c", tool_name="f__echo", scope_id="test")


@pytest.mark.parametrize("make_manager", ["shared-loop"], indirect=True)
async def test_on_the_managers_loop_a_call_runs_in_the_callers_task(make_manager, registry) -> None:
    manager = make_manager({"f": fault_config()})
    assert (await manager.start("f")).state is ServerState.CONNECTED
    router, ran_in = manager._router, []
    real_call = router.call

    async def watched(*args: Any) -> Any:
        ran_in.append(asyncio.current_task())
        return await real_call(*args)

    router.call = watched
    result = await get_tool(registry, "f__echo").execute({"text": "hi"}, _ctx())
    assert result.success and result.output == "hi"
    assert ran_in == [asyncio.current_task()]


@pytest.mark.parametrize("make_manager", ["own-thread"], indirect=True)
async def test_from_another_loop_a_call_is_still_submitted_to_the_managers(make_manager, registry) -> None:
    manager = make_manager({"f": fault_config()})
    assert (await manager.start("f")).state is ServerState.CONNECTED
    assert manager.call_here("f", "f__echo", "echo", {"text": "x"}, _ctx()) is None
    result = await get_tool(registry, "f__echo").execute({"text": "hi"}, _ctx())
    assert result.success and result.output == "hi"


async def test_a_line_that_fits_the_pipe_is_sent_without_yielding() -> None:
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", 0))
    stdin = StreamWriterWrapper(asyncio.StreamWriter(transport, protocol, None, loop))
    process = SimpleNamespace(stdin=stdin, stdout=StreamReaderWrapper(asyncio.StreamReader()))
    wire = _Wire(StdioServerParameters(command="unused"), process)
    try:
        sending = wire.send_line(b'{"jsonrpc":"2.0","id":"x","method":"ping"}\n')
        with pytest.raises(StopIteration):  # it finished at its first step: no turn of the loop
            sending.send(None)
        assert os.read(read_fd, 1000) == b'{"jsonrpc":"2.0","id":"x","method":"ping"}\n'
        transport.close()
        await asyncio.sleep(0)  # the close is seen
        with pytest.raises((anyio.BrokenResourceError, anyio.ClosedResourceError)):
            await wire.send_line(b"late\n")
    finally:
        transport.close()
        os.close(read_fd)


async def test_a_call_that_planted_nothing_makes_no_folder(make_manager, registry, monkeypatch) -> None:
    """The server's own folder is looked up only for what it planted: finding the data folder
    makes it (a mkdir, a stat and maybe a chmod), which every call paid for nothing."""
    manager = make_manager({"f": fault_config()})
    assert (await manager.start("f")).state is ServerState.CONNECTED
    made: list[Any] = []
    real_mkdir = os.mkdir

    def counted_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        made.append(path)
        real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", counted_mkdir)
    for _ in range(3):
        result = await get_tool(registry, "f__echo").execute({"text": "hi"}, _ctx())
        assert result.success and result.output == "hi"
    assert made == []
