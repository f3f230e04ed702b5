"""The private protocol between ``echo-desk gateway`` and the running app: JSON lines.

One JSON object per line, each with a ``type``; requests carry an ``id`` the answer repeats.
The gateway opens with ``hello`` (protocol version, client name, workspace); the app answers
``welcome`` or an ``error`` and closes. Then, in any order and overlapping:

    gateway → app   list {id}                         call {id, name, arguments}
                    cancel {id}                       status {id}
    app → gateway   tools {id, tools}                 result {id, result}   (an MCP CallToolResult)
                    progress {id, message}            error {id, error}
                    tools_changed {}                  status {id, clients}

A line longer than ``MAX_LINE_BYTES`` ends the connection: neither side keeps reading a peer
that does not follow the protocol. The version is checked exactly (``PROTOCOL_VERSION``); a
gateway and an app of different versions say so instead of guessing.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from echo_desk.common.json_text import read_json

PROTOCOL_VERSION = 1
#: The longest message either side accepts (a tool call's arguments, a result, a tool list).
MAX_LINE_BYTES = 16 * 1024 * 1024
#: How long either side waits for the other to take a message before it gives the peer up.
WRITE_DEADLINE_SECONDS = 30.0

Message = dict[str, Any]


class ProtocolError(Exception):
    """The peer sent something that is not this protocol (or too much of it)."""


#: What one read from a socket or pipe asks for. asyncio's transports ask for 256 KiB, which
#: glibc hands out with mmap (above its 128 KiB threshold) and takes back with munmap after every
#: message: in a process that has not raised the threshold by freeing larger blocks (the
#: gateway's, since it no longer imports the SDK) that was three system calls and a page fault
#: per read, ~0.1 ms of a gateway call. Below the threshold the buffer comes from the heap.
READ_CHUNK_BYTES = 64 * 1024


def read_in_small_chunks(transport: object) -> None:
    """Make ``transport`` read ``READ_CHUNK_BYTES`` at a time (``max_size`` is what asyncio's
    selector socket and pipe transports read with; a transport without it is left as it is)."""
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = READ_CHUNK_BYTES  # type: ignore[attr-defined]


def encode(message: Message) -> bytes:
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate (a client's JSON "\udcff") is no UTF-8: sent escaped, as it came, so
        # the call reaches the dispatcher (which refuses it and records it) instead of failing here.
        return json.dumps(message, separators=(",", ":"), default=str).encode("ascii") + b"\n"


def decode(line: bytes) -> Message:
    try:
        message = read_json(line)
    except ValueError as exc:  # UnicodeDecodeError and nesting too deep (read_json) are ValueErrors
        raise ProtocolError(f"not a JSON line: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("a message must be a JSON object with a 'type'")
    return message


async def read_message(reader: asyncio.StreamReader) -> Message | None:
    """The next message, or ``None`` at the end of the stream. The reader must have been made
    with ``limit=MAX_LINE_BYTES`` (``open_connection``/``serve`` here do)."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial.strip():
            raise ProtocolError("the stream ended in the middle of a message") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(f"a message over {MAX_LINE_BYTES} bytes") from None
    return decode(line)


class LineWriter:
    """Writes messages in order; a peer that stops reading is given up after a deadline
    (``ConnectionError``), so a stuck client never holds a call's result or the app's memory."""

    def __init__(self, writer: asyncio.StreamWriter, deadline: float = WRITE_DEADLINE_SECONDS) -> None:
        self.writer = writer
        self.deadline = deadline
        self._lock = asyncio.Lock()

    async def send(self, message: Message) -> None:
        data = encode(message)
        async with self._lock:
            if self.writer.is_closing():
                raise ConnectionError("the connection is closed")
            self.writer.write(data)
            if not self.writer.transport.get_write_buffer_size() and not self.writer.is_closing():
                return  # it all went out at once: there is nothing to wait for (drain says a lost peer)
            try:
                async with asyncio.timeout(self.deadline):
                    await self.writer.drain()
            except TimeoutError:
                self.writer.transport.abort()
                raise ConnectionError(f"the peer did not read for {self.deadline:g} s") from None

    def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()


def error(message: str, request_id: Any = None) -> Message:
    found: Message = {"type": "error", "error": message}
    if request_id is not None:
        found["id"] = request_id
    return found
