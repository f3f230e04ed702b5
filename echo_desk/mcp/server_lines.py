"""A stdio server's output read off its pipe as it comes: an answer to a waiting call goes to it
within the read.

asyncio passes what a subprocess writes through one more turn of the loop (its subprocess
transport schedules each read for later) into a ``StreamReader``, whose reader task wakes a turn
after that: two turns before a line reached the lane, and a third before the call waiting for it
ran (``bench/gateway_stages.py`` counts them). Here the pipe's own transport is given this protocol
instead (``set_protocol``): a complete line is offered to the lane (``take``) in the read itself,
and every line it does not take is queued, in order, for the reader task, which hands it to the
session as before. A line skips the queue only when nothing is queued or being handed before it,
so the session and the lane see the server's lines in the order it wrote them.

What the subprocess transport read before the switch (a server that writes before it is asked)
is still in its ``StreamReader``, or on its way there: it comes first (``begin``), and the lines
read since wait behind it. The line cap is ``line_cap``'s. Once the reader stops, what the
server still writes is read and dropped, so a server flushing its output as it shuts down never
blocks on a full pipe. Where the transport cannot be switched (another event loop's process, a
stream of another kind), ``install`` says so and the server is read through its stream as before.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from typing import Any

from echo_desk.mcp.line_cap import LineCount

#: Queued lines past this many bytes pause reading the pipe until the reader has taken them down
#: to ``RESUME_BYTES`` (as a ``StreamReader`` of the default limit does).
PAUSE_BYTES = 128 * 1024
RESUME_BYTES = 64 * 1024


class ServerLines(asyncio.Protocol):
    """The protocol of a server's stdout pipe (``install``); the reader task takes ``next_line``."""

    def __init__(self, take: Callable[[bytes], bool], count: LineCount, previous: asyncio.BaseProtocol,
                 pipe: asyncio.ReadTransport) -> None:
        self._take = take
        self._count = count
        #: The subprocess transport's own protocol for the pipe: told when it closes, so the
        #: process's end is still seen (``wait`` waits for its pipes).
        self._previous = previous
        self._pipe = pipe
        self._held: list[bytes] = []  # read before ``begin``
        self._begun = False
        self._pieces: list[bytes] = []  # a line still coming
        self._queue: collections.deque[bytes] = collections.deque()
        self._queued_bytes = 0
        #: The reader has a line it took from the queue and has not handed on yet.
        self._handing = False
        self._ended = False
        self._dropping = False
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None

    @classmethod
    def install(cls, process: Any, take: Callable[[bytes], bool], count: LineCount
                ) -> tuple[ServerLines, asyncio.StreamReader] | None:
        """Read ``process``'s stdout (anyio's process on asyncio) with a new ``ServerLines``; with
        it, the stream that holds what was read before (``begin`` takes it). ``None`` when this
        process's pipe cannot be switched."""
        subprocess_transport = getattr(process, "_transport", None)
        stream = getattr(getattr(process, "stdout", None), "_stream", None)
        get_pipe = getattr(subprocess_transport, "get_pipe_transport", None)
        pipe: Any = get_pipe(1) if callable(get_pipe) else None
        # Any read transport will do (uvloop's are not asyncio's classes).
        if not isinstance(stream, asyncio.StreamReader) or not all(
                callable(getattr(pipe, name, None))
                for name in ("set_protocol", "get_protocol", "is_closing", "pause_reading", "resume_reading")):
            return None
        if pipe.is_closing():
            return None
        lines = cls(take, count, pipe.get_protocol(), pipe)
        pipe.set_protocol(lines)
        # Reads of the pipe already on their way to the stream were scheduled before this: once
        # this runs, the stream holds all of them, and gets nothing more.
        asyncio.get_running_loop().call_soon(stream.feed_eof)
        return lines, stream

    # -- the pipe's side --------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        if self._dropping:
            return
        if not self._begun:
            self._held.append(data)
            return
        self._feed(data)

    def eof_received(self) -> bool | None:
        return self._previous.eof_received() if isinstance(self._previous, asyncio.Protocol) else None

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()
        self._previous.connection_lost(exc)

    # -- the reader's side ------------------------------------------------------------------
    def begin(self, earlier: bytes) -> None:
        """Lines from here on: ``earlier`` (what the stream held) first, then what was read since."""
        held, self._held = self._held, []
        self._begun = True
        for chunk in (earlier, *held):
            if chunk and not self._dropping:
                self._feed(chunk)

    async def next_line(self) -> bytes | None:
        """The next line the lane did not take, or ``None`` once the server's output has ended
        (or passed the cap). Calling it again says the line before was handed on."""
        self._handing = False
        while not self._queue:
            if self._ended:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        line = self._queue.popleft()
        self._queued_bytes -= len(line)
        self._handing = True
        if self._paused and self._queued_bytes <= RESUME_BYTES:
            self._paused = False
            self._pipe.resume_reading()
        return line

    def close(self) -> None:
        """The reader has stopped: drop what is queued and all the server writes from now on."""
        self._dropping = True
        self._held.clear()
        self._queue.clear()
        self._queued_bytes = 0
        self._end()
        if self._paused:
            self._paused = False
            with contextlib.suppress(Exception):  # a closed pipe has nothing to resume
                self._pipe.resume_reading()

    # -- within ----------------------------------------------------------------------------
    def _feed(self, chunk: bytes) -> None:
        if self._count.passed(chunk):
            self._dropping = True  # the cap was told; the lines queued before it are still handed on
            self._end()
            return
        if b"\n" not in chunk:
            self._pieces.append(chunk)
            return
        lines = chunk.split(b"\n")
        if self._pieces:
            lines[0] = b"".join((*self._pieces, lines[0]))
            self._pieces.clear()
        if lines[-1]:
            self._pieces.append(lines[-1])
        for line in lines[:-1]:
            if not self._queue and not self._handing and self._taken(line):
                continue
            self._queue.append(line)
            self._queued_bytes += len(line)
        if self._queue:
            self._wake()
            if not self._paused and self._queued_bytes > PAUSE_BYTES:
                self._paused = True
                self._pipe.pause_reading()

    def _taken(self, line: bytes) -> bool:
        try:
            return self._take(line)
        except Exception:  # noqa: BLE001 — queued instead: the reader offers it again and says what failed
            return False

    def _end(self) -> None:
        self._ended = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
