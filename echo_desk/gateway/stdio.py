"""MCP over this process's stdin/stdout, with a size cap and an answer for every bad line.

The SDK's own stdio transport reads any line whole (a 50 MB request is held in memory, then
parsed) and drops a line it cannot parse without a word, so a client waits for an answer that
never comes. Here a line over ``MAX_REQUEST_BYTES`` is skipped as it streams in (only its first
bytes are kept, to find its ``id``) and answered with an error; a line that is not JSON-RPC gets
the JSON-RPC error the spec names (parse error, invalid request). Reading and writing use the
event loop's own pipe transports: no thread hop per message.

Each line goes first to the session served by hand (``handshake.HandServed``); what it leaves
goes to the SDK's server, opened for the session only then (``sdk_session``). Nothing here
imports the SDK, so a client is answered without waiting for it.

A line read off the pipe while the reader task waits for bytes, with nothing read before it still
unhandled, is offered to the session in the read itself (``client_lines``): a turn of the loop
sooner than the reader task would; the lines it leaves go through the reader task, in order.

While serving, fd 0 reads ``/dev/null`` and fd 1 writes to stderr, so a stray print or a child
process cannot corrupt the protocol; both are restored afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from echo_desk.common.json_text import UNREADABLE, read_json
from echo_desk.gateway.client_lines import ClientPipe, LinesInRead, holds_nothing, offering
from echo_desk.gateway.handshake import HandServed, is_request_id
from echo_desk.gateway.protocol import read_in_small_chunks

log = logging.getLogger(__name__)

#: The largest request accepted (a write of a few MB of text fits; a flood does not).
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: How long a client may leave our answers unread before it is given up
#: (``ECHO_DESK_GATEWAY_WRITE_DEADLINE`` seconds overrides it).
WRITE_DEADLINE_SECONDS = 30.0
_HEAD_BYTES = 4096
#: An id whose digits go on past 18 is not read (its first 18 would name another request).
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18}(?![\d.eE]))')

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Oversize:
    """A line longer than the cap: its first bytes and its full length."""

    head: bytes
    size: int


class Intake:
    """The client's lines as they come, one at a time. What has been read but not yet given out
    (the rest of a chunk, a line begun) stays here, so a session stopped between two lines can
    hand its pipes on with nothing lost (``unread``)."""

    def __init__(self, reader: asyncio.StreamReader, cap: int) -> None:
        self.reader = reader
        self.cap = cap
        self._chunk = b""
        self._start = 0
        self._partial = bytearray()
        self._dropping: bytes | None = None
        self._dropped = 0

    async def lines(self) -> AsyncIterator[bytes | Oversize]:
        """Lines without their newline; one over ``cap`` bytes as ``Oversize``."""
        while True:
            if self._start >= len(self._chunk):
                self._chunk, self._start = await self.reader.read(1 << 16), 0
                if not self._chunk:
                    break
            chunk, start = self._chunk, self._start
            end = chunk.find(b"\n", start)
            piece = chunk[start: end if end >= 0 else len(chunk)]
            self._start = end + 1 if end >= 0 else len(chunk)
            if self._dropping is not None:
                self._dropped += len(piece)
            else:
                self._partial += piece
                if len(self._partial) > self.cap:
                    self._dropping, self._dropped = bytes(self._partial[:_HEAD_BYTES]), len(self._partial)
                    self._partial.clear()
            if end < 0:
                continue
            if self._dropping is not None:
                dropped, self._dropping = Oversize(self._dropping, self._dropped), None
                yield dropped
            else:
                line = bytes(self._partial)
                self._partial.clear()
                yield line
        if self._dropping is not None:
            dropped, self._dropping = Oversize(self._dropping, self._dropped), None
            yield dropped
        elif self._partial.strip():
            line = bytes(self._partial)
            self._partial.clear()
            yield line

    def unread(self) -> bytes | None:
        """What was read and not given out, in order; ``None`` in the middle of an oversized line
        (its start is gone: what follows could not be told from a request)."""
        if self._dropping is not None:
            return None
        return bytes(self._partial) + self._chunk[self._start:]

    def drained(self) -> bool:
        """Nothing read is left to give out, and no line is begun."""
        return self._start >= len(self._chunk) and not self._partial and self._dropping is None


def lines(reader: asyncio.StreamReader, cap: int) -> AsyncIterator[bytes | Oversize]:
    """Lines of ``reader`` without their newline; one over ``cap`` bytes as ``Oversize``."""
    return Intake(reader, cap).lines()


def request_id(head: bytes) -> Any:
    """The ``id`` of a (possibly cut) JSON-RPC request, or ``None`` when it cannot be told."""
    found = _ID.search(head)
    if found is None:
        return None
    with contextlib.suppress(ValueError):
        return read_json(found.group(1))
    return None


def error_line(request: Any, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request, "error": {"code": code, "message": message}}).encode() + b"\n"


def not_jsonrpc(line: bytes) -> bytes | None:
    """The error line for a line that is not JSON-RPC 2.0 at all, or ``None`` when it may be."""
    try:
        raw = read_json(line)
    except json.JSONDecodeError as exc:
        if exc.msg in UNREADABLE:  # well-formed but past what the parser reads: its id can still be looked for
            return error_line(request_id(line[:_HEAD_BYTES]), PARSE_ERROR, f"Parse error: {exc.msg}")
        return error_line(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if isinstance(raw, dict) and raw.get("jsonrpc") == "2.0":
        return None
    found = raw.get("id") if isinstance(raw, dict) else None
    return error_line(found if is_request_id(found) else None, INVALID_REQUEST,
                      "Invalid Request: not a JSON-RPC 2.0 message MCP knows")


def write_deadline() -> float:
    try:
        return max(0.1, float(os.environ.get("ECHO_DESK_GATEWAY_WRITE_DEADLINE", WRITE_DEADLINE_SECONDS)))
    except ValueError:
        return WRITE_DEADLINE_SECONDS


def _claim_stdio() -> tuple[int, int, int, int]:
    """Private copies of fds 0 and 1 for the protocol; 0 then reads /dev/null, 1 goes to stderr.
    Returns (protocol in, protocol out, saved 0, saved 1)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out, saved_in, saved_out


def _restore(saved_in: int, saved_out: int) -> None:
    for saved, fd in ((saved_in, 0), (saved_out, 1)):
        with contextlib.suppress(OSError):
            os.dup2(saved, fd)
            os.close(saved)


class SdkSide(Protocol):
    """The SDK's server for the rest of a session (``sdk_session.SdkSession``)."""

    async def send(self, line: bytes) -> None: ...

    def idle(self) -> bool: ...

    async def answered(self) -> None: ...

    async def aclose(self) -> None: ...


#: Opens the SDK's side: ``(lines to replay first, id whose answer to drop, end the session)``.
OpenSdk = Callable[[list[bytes], Any, Callable[[], None]], Awaitable[SdkSide]]
Write = Callable[[bytes], Awaitable[None]]


async def _nothing_to_flush() -> None:
    return None


async def _nothing_held() -> bytes:
    return b""


@dataclass
class Wire:
    """This process's stdin and stdout, claimed for the protocol."""

    reader: asyncio.StreamReader
    write: Write
    #: The client's pipes (in, out), owned by the wire: ``os.dup`` them to keep them past it.
    fds: tuple[int, int] = (-1, -1)
    #: Stops reading the client and returns what was read from its pipe but not yet taken.
    halt: Callable[[], Awaitable[bytes]] = _nothing_held
    #: Until everything written has gone into the client's pipe (``ConnectionError`` past the deadline).
    flush: Callable[[], Awaitable[None]] = _nothing_to_flush
    #: The client's pipe's protocol, to take lines in the read; ``None``: lines come through ``reader`` only.
    pipe: ClientPipe | None = None


@contextlib.asynccontextmanager
async def claimed_stdio(unread: bytes = b"") -> AsyncIterator[Wire]:
    """The protocol's ``Wire`` over stdin/stdout; a write the client leaves unread for
    ``write_deadline()`` seconds raises ``ConnectionError``. ``unread``: bytes of the client's
    already read from stdin elsewhere (the app handed them back), read first."""
    wire_in, wire_out, saved_in, saved_out = _claim_stdio()
    try:
        async with pipe_wire(wire_in, wire_out, unread=unread) as wire:
            yield wire
    finally:
        _restore(saved_in, saved_out)


@contextlib.asynccontextmanager
async def pipe_wire(wire_in: int, wire_out: int, deadline: float | None = None, *,
                    unread: bytes = b"") -> AsyncIterator[Wire]:
    """A ``Wire`` over a client's pipes (this process's own, or handed to the app by a gateway,
    ``handoff``); both fds are owned, and closed, by it. ``deadline``: seconds a write may wait
    for the client to read (``write_deadline()`` when not given); ``unread``: read before the pipe."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 16)
    if unread:
        reader.feed_data(unread)
    try:
        read_pipe, client_pipe = await loop.connect_read_pipe(
            lambda: ClientPipe(reader), os.fdopen(wire_in, "rb", buffering=0))
    except BaseException:
        for fd in (wire_in, wire_out):
            with contextlib.suppress(OSError):
                os.close(fd)
        raise
    try:
        write_pipe, flow = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0))
    except BaseException:
        read_pipe.close()
        with contextlib.suppress(OSError):
            os.close(wire_out)
        raise
    read_in_small_chunks(read_pipe)
    writer = asyncio.StreamWriter(write_pipe, flow, None, loop)
    deadline = write_deadline() if deadline is None else deadline

    async def write(data: bytes) -> None:
        writer.write(data)
        if not write_pipe.get_write_buffer_size() and not write_pipe.is_closing():
            return  # it all went out at once: there is nothing to wait for (drain says a lost client)
        try:
            async with asyncio.timeout(deadline):
                await writer.drain()
        except TimeoutError:
            raise ConnectionError(f"the client did not read for {deadline:g} s") from None

    async def flush() -> None:
        await write(b"")

    async def halt() -> bytes:
        read_pipe.pause_reading()  # what the client sends from now on stays in its pipe
        reader.feed_eof()
        return await reader.read()  # at the end of file, all the reader holds comes at once

    try:
        yield Wire(reader, write, (wire_in, wire_out), halt, flush, client_pipe)
    finally:
        read_pipe.close()
        write_pipe.close()


class Serving:
    """A session being served (``serve``), seen from outside: to stop reading it between two
    lines and see when its answers have all been written (handing its pipes on, ``handed``)."""

    def __init__(self) -> None:
        self.intake: Intake | None = None
        self.hand: HandServed | None = None
        self.sdk: SdkSide | None = None
        self.reading: asyncio.Task[None] | None = None
        self.halted = False
        self.between_lines = False
        #: Takes the client's lines in the read while the reader waits for them.
        self.in_read: LinesInRead | None = None

    async def stop_reading(self) -> bytes | None:
        """Take no more lines (the session goes on: its calls still answer); what was read and
        not taken, or ``None`` when that cannot be said whole."""
        self.halted = True
        reading = self.reading
        if reading is None or self.intake is None:
            return None
        if self.between_lines and not (self.in_read is not None and self.in_read.pending):
            reading.cancel()  # waiting for bytes: nothing is half taken
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reading  # else the line being taken is taken whole first
        if not reading.cancelled() and reading.exception() is not None:
            return None  # the client stopped reading: the session ends anyway
        return self.intake.unread()

    def waiting(self) -> bool:
        """The reader waits for the client's bytes, with nothing it read still to give out."""
        return self.between_lines and not self.halted and self.intake is not None \
            and self.intake.drained() and holds_nothing(self.intake.reader)

    async def answered(self) -> None:
        """Until every answer and notice of the session is written to the client (new ones may
        start meanwhile only from requests already taken: reading should be stopped first)."""
        while True:
            underway = self.hand.underway() if self.hand is not None else []
            if underway:
                await asyncio.wait(underway)
            elif self.sdk is not None and not self.sdk.idle():
                await self.sdk.answered()
            else:
                return


async def serve(wire: Wire, hand: HandServed, open_sdk: OpenSdk, cap: int = MAX_REQUEST_BYTES,
                serving: Serving | None = None) -> None:
    """Serve one session until the client closes its input or stops reading (``serving``: to stop
    reading it from outside, which does not end it)."""
    stop = asyncio.get_running_loop().create_future()
    seen = serving if serving is not None else Serving()
    intake = seen.intake = Intake(wire.reader, cap)
    seen.hand = hand
    in_read = seen.in_read = LinesInRead(hand.take, seen.waiting, cap)

    def end(_why: BaseException | None = None) -> None:
        if not stop.done():
            stop.set_result(None)

    async def pump_in() -> None:
        incoming = intake.lines()
        while not seen.halted:
            seen.between_lines = True
            try:
                line = await anext(incoming)
            except StopAsyncIteration:
                return
            finally:
                seen.between_lines = False
            if isinstance(line, Oversize):
                await wire.write(error_line(request_id(line.head), INVALID_REQUEST,
                                            f"Request too large: {line.size / 1e6:.1f} MB "
                                            f"(Echo Desk accepts up to {cap / 1e6:.1f} MB)"))
                continue
            if not line.strip() or (not in_read.offered() and hand.take(line)):
                continue
            refused = not_jsonrpc(line)
            if refused is not None:
                await wire.write(refused)
                continue
            if seen.sdk is None:
                prelude = hand.hand_over() if hand.mine else []
                seen.sdk = await open_sdk(prelude, hand.replayed_id if prelude else None, end)
            await seen.sdk.send(line)

    def read_ended(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and isinstance(task.exception(), Exception) \
                and not isinstance(task.exception(), ConnectionError):
            log.error("the gateway stopped reading its client", exc_info=task.exception())
        if not seen.halted or (not task.cancelled() and task.exception() is not None):
            end()

    hand.attach(wire.write, end)
    reading = seen.reading = asyncio.ensure_future(pump_in())
    reading.add_done_callback(read_ended)
    try:
        with offering(wire.pipe, in_read):
            await stop
    finally:
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await reading
        await hand.aclose()
        if seen.sdk is not None:
            await seen.sdk.aclose()

