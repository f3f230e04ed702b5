"""MCP over this process's stdin/stdout, with a size cap and an answer for every bad line.

The SDK's own stdio transport reads any line whole (a 50 MB request is held in memory, then
parsed) and drops a line it cannot parse without a word, so a client waits for an answer that
never comes. Here a line over ``MAX_REQUEST_BYTES`` is skipped as it streams in (only its first
bytes are kept, to find its ``id``) and answered with an error; a line that is not JSON-RPC gets
the JSON-RPC error the spec names (parse error, invalid request). Reading and writing use the
event loop's own pipe transports: no thread hop per message.

While serving, fd 0 reads ``/dev/null`` and fd 1 writes to stderr, so a stray print or a child
process cannot corrupt the protocol; both are restored afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

#: The largest request accepted (a write of a few MB of text fits; a flood does not).
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: How long a client may leave our answers unread before it is given up
#: (``ECHO_DESK_GATEWAY_WRITE_DEADLINE`` seconds overrides it).
WRITE_DEADLINE_SECONDS = 30.0
_HEAD_BYTES = 4096
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})')

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Oversize:
    """A line longer than the cap: its first bytes and its full length."""

    head: bytes
    size: int


async def lines(reader: asyncio.StreamReader, cap: int) -> AsyncIterator[bytes | Oversize]:
    """Lines of ``reader`` without their newline; one over ``cap`` bytes as ``Oversize``."""
    buffer = bytearray()
    dropping: bytes | None = None
    dropped = 0
    while chunk := await reader.read(1 << 16):
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start: end if end >= 0 else len(chunk)]
            if dropping is not None:
                dropped += len(piece)
            else:
                buffer += piece
                if len(buffer) > cap:
                    dropping, dropped = bytes(buffer[:_HEAD_BYTES]), len(buffer)
                    buffer.clear()
            if end < 0:
                break
            if dropping is not None:
                yield Oversize(dropping, dropped)
                dropping = None
            else:
                yield bytes(buffer)
                buffer.clear()
            start = end + 1
    if dropping is not None:
        yield Oversize(dropping, dropped)
    elif buffer.strip():
        yield bytes(buffer)


def request_id(head: bytes) -> Any:
    """The ``id`` of a (possibly cut) JSON-RPC request, or ``None`` when it cannot be told."""
    found = _ID.search(head)
    if found is None:
        return None
    with contextlib.suppress(ValueError):
        return json.loads(found.group(1))
    return None


def error_line(request: Any, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request, "error": {"code": code, "message": message}}).encode() + b"\n"


def parsed(line: bytes) -> SessionMessage | bytes:
    """The message of one line, or the error line to answer it with."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        pass
    try:
        raw = json.loads(line)
    except ValueError:
        return error_line(None, PARSE_ERROR, "Parse error: the line is not JSON")
    found = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(found, str | int) or isinstance(found, bool):
        found = None
    return error_line(found, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message MCP knows")


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


class FastPath(Protocol):
    """Takes some lines before the SDK sees them (``fast_calls.FastCalls``)."""

    def attach(self, write: Callable[[bytes], Awaitable[None]], fail: Callable[[BaseException], None]) -> None: ...

    def take(self, line: bytes) -> bool: ...

    async def aclose(self) -> None: ...


@contextlib.asynccontextmanager
async def capped_stdio(cap: int = MAX_REQUEST_BYTES, fast: FastPath | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` over this process's stdin/stdout; the
    lines ``fast`` takes never reach them."""
    loop = asyncio.get_running_loop()
    wire_in, wire_out, saved_in, saved_out = _claim_stdio()
    reader = asyncio.StreamReader(limit=1 << 16)
    try:
        read_pipe, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0))
        write_pipe, flow = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0))
    except BaseException:
        _restore(saved_in, saved_out)
        raise
    writer = asyncio.StreamWriter(write_pipe, flow, None, loop)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)

    deadline = write_deadline()

    async def write(data: bytes) -> None:
        writer.write(data)
        if not write_pipe.get_write_buffer_size() and not write_pipe.is_closing():
            return  # it all went out at once: there is nothing to wait for (drain says a lost client)
        try:
            async with asyncio.timeout(deadline):
                await writer.drain()
        except TimeoutError:
            raise ConnectionError(f"the client did not read for {deadline:g} s") from None

    async def pump_in() -> None:
        async with to_server:
            async for line in lines(reader, cap):
                if isinstance(line, Oversize):
                    await write(error_line(request_id(line.head), INVALID_REQUEST,
                                           f"Request too large: {line.size / 1e6:.1f} MB "
                                           f"(Echo Desk accepts up to {cap / 1e6:.1f} MB)"))
                    continue
                if not line.strip() or (fast is not None and fast.take(line)):
                    continue
                message = parsed(line)
                if isinstance(message, bytes):
                    await write(message)
                else:
                    await to_server.send(message)

    async def pump_out() -> None:
        async with from_server:
            async for message in from_server:
                await write(message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")

    try:
        async with anyio.create_task_group() as group:
            if fast is not None:
                fast.attach(write, lambda _exc: group.cancel_scope.cancel())
            group.start_soon(_ends_group, pump_in, group)
            group.start_soon(_ends_group, pump_out, group)
            yield from_client, to_client
            group.cancel_scope.cancel()
    finally:
        if fast is not None:
            await fast.aclose()
        read_pipe.close()
        write_pipe.close()
        _restore(saved_in, saved_out)


async def _ends_group(pump: Any, group: anyio.abc.TaskGroup) -> None:
    """A pump that ends (the client closed stdin) or fails (it stopped reading) ends the session."""
    try:
        await pump()
    except (ConnectionError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        group.cancel_scope.cancel()
