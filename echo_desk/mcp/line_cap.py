"""A stdio server's messages are lines, and no line is read past ``MAX_LINE_BYTES``.

The SDK's stdio reader (``mcp.client.stdio``) keeps what a server writes until a newline, with
no limit, and joins each 64 KB read to all it kept before: a server that writes one endless line
grew Echo Desk's memory without end, and the copying took the loop every other server shares.

The reader decodes the server's stdout through ``TextReceiveStream`` (the one name it reads the
pipe through); here that name, in the SDK's module only, builds the same stream over the pipe
counted: once a line passes the cap, the server is failed with why (``on_too_long``, set for the
connection being opened) and the stream ends for the reader, which then drops the rest of what
the server writes unread until the connection closes it. Its memory stays at the cap. Echo Desk's
own stdio transport (``stdio_transport``) reads through the same count (``capped``, ``counted``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import anyio
import mcp.client.stdio as sdk_stdio
from anyio.abc import ByteReceiveStream
from anyio.streams.text import TextReceiveStream

log = logging.getLogger(__name__)

#: The longest message a server may send, as for the gateway's own protocol (a tool list of the
#: most tools with the largest schemas, a result with an image resource, fit well under it).
MAX_LINE_BYTES = 16 * 1024 * 1024

#: Who to tell when a line of the server being opened in this context passes the cap.
_on_too_long: ContextVar[Callable[[], None] | None] = ContextVar("echo_desk_mcp_line_too_long", default=None)


class LineCount:
    """How long the line still coming is, read after read; once a line passes ``limit``,
    ``too_long`` is called (once) and every read after that passes it too."""

    def __init__(self, too_long: Callable[[], None] | None, limit: int = MAX_LINE_BYTES) -> None:
        self._too_long = too_long
        self._limit = limit
        self._line = 0
        self._over = False

    @property
    def over(self) -> bool:
        return self._over

    def passed(self, chunk: bytes) -> bool:
        """Whether the line ``chunk`` continues (or one it holds) passes the cap."""
        if self._over:
            return True
        # The line a newline ends counts what came before this read: counted from the newline
        # on only, a line that passed the cap in the read that ended it (up to a read, 64 KB,
        # over) was let through whole.
        lines = chunk.split(b"\n")
        longest = max([self._line + len(lines[0]), *(len(line) for line in lines[1:])])
        self._line = len(lines[-1]) if len(lines) > 1 else longest
        if longest <= self._limit:
            return False
        self._over = True
        if self._too_long is not None:
            self._too_long()
        else:
            log.warning("an MCP server wrote a line longer than %d bytes: the rest is not read", self._limit)
        return True


def counted() -> LineCount:
    """A count for the server whose connection is being opened in this context (``reporting_to``)."""
    return LineCount(_on_too_long.get())


class _CappedLines(ByteReceiveStream):
    """``stream`` as it is, until a line (the bytes since the last newline) passes ``limit``:
    then ``too_long`` is called once and the stream ends."""

    def __init__(self, stream: ByteReceiveStream, too_long: Callable[[], None] | None, limit: int) -> None:
        self._stream = stream
        self._count = LineCount(too_long, limit)

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._count.over:
            raise anyio.EndOfStream
        chunk = await self._stream.receive(max_bytes)
        if self._count.passed(chunk):
            raise anyio.EndOfStream
        return chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


def capped(stream: ByteReceiveStream) -> ByteReceiveStream:
    """``stream`` (a server's stdout) ending once a line passes the cap, told to whoever the
    connection being opened in this context named (``reporting_to``)."""
    return _CappedLines(stream, _on_too_long.get(), MAX_LINE_BYTES)


def _capped_text(transport_stream: Any, encoding: str = "utf-8", errors: str = "strict") -> TextReceiveStream:
    """What the SDK's reader gets for ``TextReceiveStream(process.stdout, ...)``."""
    return TextReceiveStream(capped(transport_stream), encoding=encoding, errors=errors)


def install() -> bool:
    """Put the cap in the SDK's stdio reader (idempotent); ``False`` when this SDK does not read
    through ``TextReceiveStream`` (then no stdio server is started: its output would be unbounded)."""
    current = getattr(sdk_stdio, "TextReceiveStream", None)
    if current is _capped_text:
        return True
    if current is not TextReceiveStream:
        log.error("this MCP SDK does not read a server's output through TextReceiveStream: no line cap")
        return False
    sdk_stdio.TextReceiveStream = _capped_text  # type: ignore[attr-defined,assignment]
    return True


@contextlib.contextmanager
def reporting_to(too_long: Callable[[], None]) -> Iterator[None]:
    """A stdio client opened in this block tells ``too_long`` when the server passes the cap."""
    token = _on_too_long.set(too_long)
    try:
        yield
    finally:
        _on_too_long.reset(token)
