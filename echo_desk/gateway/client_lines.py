"""The client's lines taken off its pipe in the read itself, while the reader task has none.

asyncio's pipe transport feeds what it reads to a ``StreamReader`` whose reader task wakes a turn
of the loop later, only to give the line to the session (``HandServed.take``), which starts the
request's task a turn after that. Here the pipe's protocol (``ClientPipe``) offers what it reads
to ``LinesInRead`` first: while the reader task waits for bytes with nothing read before them
still unhandled, each complete line is offered to the session in the read, one turn sooner. The
first line the session leaves, and everything after it, goes to the stream as before, and the
reader task is told that this line was offered already (``offered``): the session sees every
line once, in the order the client wrote it. A line over the cap, a line begun and not ended,
and every byte once reading stops (a hand-back, which needs them unread) go to the stream too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator


class ClientPipe(asyncio.StreamReaderProtocol):
    """The protocol of the client's input pipe: what it reads goes to ``offer`` first (while one
    is set), and what that leaves to the stream, as a ``StreamReaderProtocol`` does."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        super().__init__(reader)
        #: Takes what it can from the start of a chunk read; returns the rest.
        self.offer: Callable[[bytes], bytes] | None = None

    def data_received(self, data: bytes) -> None:
        if self.offer is not None:
            data = self.offer(data)
            if not data:
                return
        super().data_received(data)


class LinesInRead:
    """``ClientPipe.offer`` for a session: ``take`` is the session's, ``waiting`` says the reader
    task waits for bytes with nothing left before them, ``cap`` is the longest line taken here."""

    def __init__(self, take: Callable[[bytes], bool], waiting: Callable[[], bool], cap: int) -> None:
        self._take = take
        self._waiting = waiting
        self._cap = cap
        self._offered = False

    def __call__(self, data: bytes) -> bytes:
        if self._offered or not self._waiting():
            return data
        start = 0
        while (end := data.find(b"\n", start)) >= 0 and end - start <= self._cap:
            line = data[start:end]
            if line.strip():
                try:
                    taken = self._take(line)
                except Exception:  # noqa: BLE001 — left to the reader task, which offers it again and says what failed
                    return data[start:]
                if not taken:
                    self._offered = True
                    return data[start:]
            start = end + 1
        return data[start:]

    def offered(self) -> bool:
        """The line the reader task now has was offered here, and left (asked once per line)."""
        offered, self._offered = self._offered, False
        return offered

    @property
    def pending(self) -> bool:
        """A line offered here and left is on its way to the reader task: the session has seen
        it, so it is half taken (the reader task must take it whole, not be stopped before it)."""
        return self._offered


@contextlib.contextmanager
def offering(pipe: ClientPipe | None, offer: Callable[[bytes], bytes]) -> Iterator[None]:
    """``pipe`` offers what it reads to ``offer`` within (no pipe: lines come through the stream)."""
    if pipe is None:
        yield
        return
    pipe.offer = offer
    try:
        yield
    finally:
        pipe.offer = None


def holds_nothing(reader: asyncio.StreamReader) -> bool:
    """``reader`` has no bytes waiting to be read (on another implementation, unknown: it may)."""
    return not getattr(reader, "_buffer", True) and not reader.at_eof()
