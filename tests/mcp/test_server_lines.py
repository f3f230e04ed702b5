"""A stdio server's output read off its pipe: an answer reaches its waiting call within the read,
and every line still comes in the order the server wrote it."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
from mcp.client.stdio import StdioServerParameters

from echo_desk.mcp.line_cap import LineCount
from echo_desk.mcp.server_lines import PAUSE_BYTES, ServerLines
from echo_desk.mcp.stdio_transport import _Wire

#: A server that answers each ``tools/call`` at once; asked for ``{"notice": true}``, it first
#: writes a notification, in the same write as the answer. With ``banner`` in its arguments it
#: writes a notification first thing, before it is asked anything.
_SERVER = r"""
import json, sys
if "banner" in sys.argv:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                 "params": {"level": "info", "data": "banner"}}) + "\n")
    sys.stdout.flush()
    sys.stderr.write("ready\n")
    sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") != "tools/call":
        continue
    out = ""
    if message["params"]["arguments"].get("notice"):
        out += json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"level": "info", "data": "before the answer"}}) + "\n"
    out += json.dumps({"jsonrpc": "2.0", "id": message["id"],
                       "result": {"content": [{"type": "text", "text": "done"}]}}) + "\n"
    sys.stdout.write(out)
    sys.stdout.flush()
"""


def _stamp(data: dict[str, Any], _opts: dict[str, Any]) -> None:
    return None


async def _validate(_name: str, _result: types.CallToolResult) -> None:
    return None


async def _never_asked(*_args: Any) -> Any:
    raise AssertionError("this server needs no input")


def _client() -> Any:
    """A stand-in for the SDK's client after its handshake: what the lane borrows from it."""
    return SimpleNamespace(session=SimpleNamespace(_stamp=_stamp, validate_tool_result=_validate),
                           _drive_input_required=_never_asked)


@asynccontextmanager
async def _served(*args: str) -> AsyncIterator[_Wire]:
    """``_SERVER`` behind Echo Desk's transport, its lane ready for calls."""
    process = await anyio.open_process([sys.executable, "-c", _SERVER, *args])
    if "banner" in args:  # the banner is in the pipe (and read there) before the transport is made
        assert process.stderr is not None
        assert await process.stderr.receive() == b"ready\n"
        await _until(lambda: bool(process.stdout._stream._buffer))
    wire = _Wire(StdioServerParameters(command=sys.executable), process)
    assert wire.lines is not None  # read off the pipe
    assert wire.lane.adopt(_client())
    async with anyio.create_task_group() as group:
        group.start_soon(wire.stdout_reader)
        group.start_soon(wire.stdin_writer)
        try:
            yield wire
        finally:
            wire.shutting_down = True
            wire.lane.end()
            with anyio.CancelScope(shield=True):
                await wire.shutdown()
            group.cancel_scope.cancel()


async def _until(condition: Any, deadline: float = 10.0) -> None:
    ends = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < ends, "never happened"
        await asyncio.sleep(0.001)


def _count_turns(loop: Any) -> list[int]:
    """A counter of ``loop``'s turns (asyncio's own loop: one ``_run_once`` is one turn)."""
    turns = [0]
    real = loop._run_once

    def counted() -> None:
        turns[0] += 1
        real()

    loop._run_once = counted
    return turns


async def test_an_answer_reaches_its_call_in_the_turn_it_is_read() -> None:
    """Before: the subprocess transport's hop, then the reader task's, then the call's (4 turns
    from the request to the result); now the read hands the answer over (2: the read, the call)."""
    loop = asyncio.get_running_loop()
    turns = _count_turns(loop)
    try:
        async with _served() as wire:
            taken = []
            for _ in range(5):
                before = turns[0]
                result = await wire.lane.call_tool("anything", {})
                taken.append(turns[0] - before)
                assert result.content[0].text == "done"  # type: ignore[union-attr]
            assert min(taken) <= 2, taken
    finally:
        del loop._run_once  # type: ignore[attr-defined]


async def test_an_answer_after_a_notification_waits_until_the_session_has_it() -> None:
    async with _served() as wire:
        call = asyncio.ensure_future(wire.lane.call_tool("anything", {"notice": True}))
        first = await wire.session_reads.receive()  # the session reads only now
        assert not isinstance(first, Exception)
        assert isinstance(first.message, types.JSONRPCNotification)
        assert not call.done()  # its answer came after the notification: it was not passed ahead
        assert (await call).content[0].text == "done"  # type: ignore[union-attr]


async def test_what_the_server_wrote_before_the_switch_comes_first() -> None:
    async with _served("banner") as wire:
        call = asyncio.ensure_future(wire.lane.call_tool("anything", {"notice": True}))
        for expected in ("banner", "before the answer"):
            message = await wire.session_reads.receive()
            assert not isinstance(message, Exception)
            assert isinstance(message.message, types.JSONRPCNotification)
            assert message.message.params == {"level": "info", "data": expected}
        assert (await call).content[0].text == "done"  # type: ignore[union-attr]


class _Pipe(asyncio.ReadTransport):
    """A pipe's transport, as the protocol sees it."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.lost: list[Exception | None] = []

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


class _Previous(asyncio.Protocol):
    def __init__(self) -> None:
        self.lost: list[Exception | None] = []

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.append(exc)


def _lines(take: Any = lambda _line: False, limit: int = 1000) -> tuple[ServerLines, _Pipe, _Previous, list[None]]:
    told: list[None] = []
    pipe, previous = _Pipe(), _Previous()
    lines = ServerLines(take, LineCount(lambda: told.append(None), limit), previous, pipe)
    return lines, pipe, previous, told


async def _all(lines: ServerLines) -> list[bytes]:
    got = []
    while (line := await lines.next_line()) is not None:
        got.append(line)
    return got


async def test_reads_before_begin_wait_behind_what_the_stream_held_and_nothing_passes_a_queued_line() -> None:
    taken: list[bytes] = []
    lines, _, previous, _ = _lines(lambda line: line.startswith(b"lane") and not taken.append(line))
    lines.data_received(b"lane-2\nthird\nfou")
    lines.begin(b"first\n")
    lines.data_received(b"r\n")
    assert [await lines.next_line() for _ in range(4)] == [b"first", b"lane-2", b"third", b"four"]
    assert taken == []  # each came behind a line queued before it: the reader offers them in order
    waiting = asyncio.ensure_future(lines.next_line())  # the last line was handed on: nothing is before the next
    await asyncio.sleep(0)
    lines.data_received(b"lane-3\nfifth\n")
    assert taken == [b"lane-3"]
    assert await waiting == b"fifth"
    lines.connection_lost(None)
    assert previous.lost == [None]  # the process still learns its pipe closed
    assert await lines.next_line() is None


async def test_a_line_past_the_cap_ends_the_lines_and_what_follows_is_dropped() -> None:
    lines, _, _, told = _lines(limit=10)
    lines.begin(b"")
    lines.data_received(b"short\n")
    lines.data_received(b"12345678901\nafter\n")
    lines.data_received(b"more\n")
    assert told == [None]
    assert await _all(lines) == [b"short"]


async def test_reading_pauses_while_too_much_waits_and_resumes_as_it_is_taken() -> None:
    lines, pipe, _, _ = _lines(limit=PAUSE_BYTES)
    lines.begin(b"")
    line = b"x" * 1000 + b"\n"
    while not pipe.paused:
        lines.data_received(line)
    while pipe.paused:
        assert await lines.next_line() == line[:-1]
    lines.close()  # the reader stopped: nothing more is kept
    lines.data_received(line)
    assert await lines.next_line() is None
