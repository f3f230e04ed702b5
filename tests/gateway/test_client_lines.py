"""The client's lines taken off its pipe in the read: a request reaches the session in the turn it
is read, and every line still comes in the order the client wrote it, once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from echo_desk.gateway.stdio import Serving, Wire, pipe_wire, serve

TURNS = [0]


class _Hand:
    """A stand-in for ``HandServed``: takes the lines that start ``{"mine"``, noting each line it
    is offered and the loop's turn it was offered in."""

    def __init__(self) -> None:
        self.offered: list[tuple[bytes, int]] = []
        self.mine = False
        self.replayed_id = None
        self.arrived = asyncio.Event()
        #: Called with each line offered, before it is taken or left.
        self.on_take: Any = None

    def attach(self, _write: Any, _fail: Any) -> None:
        return None

    def take(self, line: bytes) -> bool:
        self.offered.append((line, TURNS[0]))
        if self.on_take is not None:
            self.on_take(line)
        self.arrived.set()
        return line.startswith(b'{"mine"')

    def underway(self) -> list[asyncio.Task[None]]:
        return []

    async def aclose(self) -> None:
        return None


class _Sdk:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send(self, line: bytes) -> None:
        self.sent.append(line)

    def idle(self) -> bool:
        return True

    async def answered(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@contextlib.asynccontextmanager
async def _served(wire_of: Any = None) -> AsyncIterator[tuple[int, _Hand, _Sdk, Serving, Wire]]:
    """A session served over a pipe; yields the pipe's write end (the client's) among the rest."""
    client_in, ours = os.pipe()
    answers, client_out = os.pipe()
    hand, sdk, seen = _Hand(), _Sdk(), Serving()

    async def open_sdk(*_args: Any) -> _Sdk:
        return sdk

    loop = asyncio.get_running_loop()
    real = loop._run_once  # type: ignore[attr-defined]

    def counted() -> None:
        TURNS[0] += 1
        real()

    loop._run_once = counted  # type: ignore[attr-defined]
    try:
        async with pipe_wire(client_in, client_out, 5.0) as wire:
            served = wire if wire_of is None else wire_of(wire)
            serving = asyncio.ensure_future(serve(served, hand, open_sdk, cap=100, serving=seen))  # type: ignore[arg-type]
            try:
                await _until(lambda: seen.between_lines)
                yield ours, hand, sdk, seen, wire
            finally:
                serving.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await serving
    finally:
        del loop._run_once  # type: ignore[attr-defined]
        for fd in (ours, answers):
            os.close(fd)


async def _until(condition: Any, deadline: float = 10.0) -> None:
    ends = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < ends, "never happened"
        await asyncio.sleep(0.001)


async def test_a_request_reaches_the_session_in_the_turn_it_is_read() -> None:
    """Before: the read fed the stream, and the reader task took the line a turn later (2 turns
    from the write); now the read hands it over (1)."""
    async with _served() as (ours, hand, _sdk, seen, _wire):
        taken = []
        for number in range(5):
            hand.arrived.clear()
            before = TURNS[0]
            os.write(ours, b'{"mine":%d}\n' % number)
            await hand.arrived.wait()
            taken.append(hand.offered[-1][1] - before)
            await _until(lambda: seen.between_lines)
        assert min(taken) <= 1, taken
        assert [line for line, _ in hand.offered] == [b'{"mine":%d}' % n for n in range(5)]


async def test_lines_come_in_order_each_offered_once() -> None:
    async with _served() as (ours, hand, sdk, _seen, _wire):
        os.write(ours, b'{"mine":1}\n\n{"jsonrpc":"2.0","id":2}\n{"mine":3}\n{"jsonrpc":"2.0","id":4}\n{"mine":5}\n{"mi')
        await _until(lambda: len(hand.offered) == 5)
        await _until(lambda: len(sdk.sent) == 2)
        os.write(ours, b'ne":6}\n' + b"x" * 150 + b'\n{"mine":7}\n')
        await _until(lambda: len(hand.offered) == 7)
        assert [line for line, _ in hand.offered] == [
            b'{"mine":1}', b'{"jsonrpc":"2.0","id":2}', b'{"mine":3}', b'{"jsonrpc":"2.0","id":4}', b'{"mine":5}', b'{"mine":6}', b'{"mine":7}']
        assert sdk.sent == [b'{"jsonrpc":"2.0","id":2}', b'{"jsonrpc":"2.0","id":4}']


async def test_what_comes_after_reading_stops_is_handed_on_whole() -> None:
    async with _served() as (ours, hand, _sdk, seen, wire):
        os.write(ours, b'{"mine":1}\n{"mi')
        await _until(lambda: len(hand.offered) == 1)
        await _until(lambda: seen.between_lines and seen.intake is not None and not seen.intake.drained())
        unread = await seen.stop_reading()
        assert unread == b'{"mi'
        os.write(ours, b'ne":2}\n{"mine":3}\n')
        await _until(lambda: len(wire.reader._buffer) == len(b'ne":2}\n{"mine":3}\n'))  # type: ignore[attr-defined]
        unread += await wire.halt()
        assert unread == b'{"mine":2}\n{"mine":3}\n'  # nothing taken once reading stopped
        assert len(hand.offered) == 1


async def test_a_line_left_in_the_read_is_taken_whole_though_reading_stops_before_the_reader_has_it() -> None:
    """The session saw it (``take`` may have noted it, as the SDK's ``initialize``): handed on as
    unread too, it would be said twice."""
    async with _served() as (ours, hand, sdk, seen, _wire):
        stopped: list[asyncio.Future[bytes | None]] = []
        hand.on_take = lambda _line: stopped.append(asyncio.ensure_future(seen.stop_reading()))
        os.write(ours, b'{"jsonrpc":"2.0","id":1}\n{"mine":2}\n')
        await _until(lambda: bool(stopped))
        unread = await stopped[0]
        assert sdk.sent == [b'{"jsonrpc":"2.0","id":1}']
        assert unread == b'{"mine":2}\n'
        assert [line for line, _ in hand.offered] == [b'{"jsonrpc":"2.0","id":1}']


async def test_a_wire_without_its_pipe_is_read_through_its_stream() -> None:
    def stream_only(wire: Wire) -> Wire:
        return Wire(wire.reader, wire.write)

    async with _served(stream_only) as (ours, hand, _sdk, _seen, _wire):
        os.write(ours, b'{"mine":1}\n{"mine":2}\n')
        await _until(lambda: len(hand.offered) == 2)
        assert [line for line, _ in hand.offered] == [b'{"mine":1}', b'{"mine":2}']
