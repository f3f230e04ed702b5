"""A stdio server's transport with the call lane on the wire: the SDK's, less its hops.

The SDK's stdio transport (``mcp.client.stdio.stdio_client``) hands every message through a
memory stream and a task of its own each way, decodes the server's output as text and validates
each line as a pydantic model; with the lane (``call_lane``) behind it, a third stream and task sat
between it and the session. An app's ``tools/call`` took about ten event-loop turns there, ~0.3 ms
of the app's CPU of a gateway call (``bench/gateway.py``). Here the reader hands each line to the
lane first (its answers go straight to the waiting call, read as plain JSON and checked against the
same models), the rest to the session as the SDK's reader does, and the lane writes its requests
straight to the server's stdin. The server's stdout is read off its pipe by ``server_lines``, which
offers each line to the lane within the read itself (two turns fewer per call than through the
subprocess transport's stream and the reader task); the reader task takes the rest, in order.

The rest is the SDK's own code, borrowed: starting the process (in its own session, with the
default environment), the drain of what the server still writes, and the shutdown (flush, close
stdin, wait, kill the process tree, all bounded and shielded). Lines are capped as the SDK's reader
is (``line_cap``). When this SDK lacks any of the borrowed parts, or the server's encoding is not
UTF-8 (a line is decoded on its own here), the SDK's transport is used with the lane behind it
(``through_lane``): slower, never wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, TextIO

import anyio
import anyio.lowlevel
import mcp.client.stdio as sdk_stdio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage

from echo_desk.mcp import line_cap
from echo_desk.mcp.call_lane import CallLane, Incoming, through_lane
from echo_desk.mcp.server_lines import ServerLines
from echo_desk.mcp.server_process import ServerProcess

log = logging.getLogger(__name__)

#: What is borrowed from the SDK's module (all private there: checked, not assumed).
_BORROWED = ("_get_executable_command", "_create_platform_compatible_process", "get_default_environment",
             "_parse_line", "_drain_stdout", "_stop_server_process", "_aclose_all", "_WRITER_FLUSH_TIMEOUT")

Streams = tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]


def _own_transport_works(params: StdioServerParameters) -> bool:
    missing = [name for name in _BORROWED if not hasattr(sdk_stdio, name)]
    if missing:
        log.info("this MCP SDK lacks %s: stdio servers use its own transport", ", ".join(missing))
        return False
    return params.encoding.lower().replace("_", "-") in {"utf-8", "utf8"}


@contextlib.asynccontextmanager
async def stdio_with_lane(params: StdioServerParameters, errlog: TextIO, keep: Callable[[CallLane], None]
                          ) -> AsyncIterator[Streams | Any]:
    """The server ``params`` starts, its streams for the session; ``keep`` is given the lane."""
    if not _own_transport_works(params):
        async with through_lane(sdk_stdio.stdio_client(params, errlog=errlog), keep) as streams:
            yield streams
        return
    command = await sdk_stdio._get_executable_command(params.command)
    process = await sdk_stdio._create_platform_compatible_process(
        command=command, args=params.args, env=sdk_stdio.get_default_environment() | (params.env or {}),
        errlog=errlog, cwd=params.cwd)
    # As in the SDK: no awaits from the spawn until the task group is entered, or a cancellation
    # delivered in the gap would leak the live process.
    wire = _Wire(params, process)
    handle = wire.lane.process = ServerProcess(process.pid)
    keep(wire.lane)
    async with anyio.create_task_group() as group:
        group.start_soon(wire.stdout_reader)
        group.start_soon(wire.stdin_writer)
        try:
            yield wire.session_reads, wire.session_writes
        finally:
            wire.shutting_down = True
            wire.lane.end()
            with anyio.CancelScope(shield=True):  # the server must not outlive a cancelled caller
                await wire.shutdown()
            handle.close()
            group.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()


class _Wire:
    """One server process's pipes: the lane's lines and the session's messages."""

    def __init__(self, params: StdioServerParameters, process: Any) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.params = params
        self.process = process
        self.stdin = process.stdin
        self.stdout = line_cap.capped(process.stdout)
        self.to_session, self.session_reads = anyio.create_memory_object_stream[Incoming](0)
        self.session_writes, self.from_session = anyio.create_memory_object_stream[SessionMessage](0)
        self.shutting_down = False
        self.writer_done = anyio.Event()
        self.lane = CallLane(self.session_reads, self.session_writes, self.send_line)
        #: The server's stdout read off its pipe, the lane's answers taken within the read (and the
        #: stream holding what came before); ``None``: read through ``stdout`` (``server_lines``).
        self.lines = ServerLines.install(process, self.lane.take_line, line_cap.counted())
        #: The asyncio writer under anyio's stdin stream (``None`` if this anyio keeps it elsewhere).
        stream = getattr(self.stdin, "_stream", None)
        self._stdin_writer: asyncio.StreamWriter | None = stream if isinstance(stream, asyncio.StreamWriter) else None

    async def send_line(self, data: bytes) -> None:
        if self.shutting_down:
            raise anyio.ClosedResourceError
        writer = self._stdin_writer
        try:
            if writer is None or writer.is_closing():
                await self.stdin.send(data)  # anyio says how the pipe went (closed, broken)
                return
            # The pipe's own writer: a line that goes out whole at once costs no turn of the loop
            # (anyio's ``send`` yields on every line: one of the ~10 turns of a gateway's call).
            writer.write(data)  # one write of a whole line: it never splits another's
            if writer.transport.get_write_buffer_size():
                await writer.drain()  # a full pipe: wait for the server to read, as anyio does
        except OSError as exc:  # a pipe the server closed: the connection is gone, as for the SDK's writer
            raise anyio.BrokenResourceError from exc

    async def _deliver(self, line: bytes) -> None:
        if not self.lane.take_line(line):
            text = line.decode(self.params.encoding, self.params.encoding_error_handler)
            await self.to_session.send(sdk_stdio._parse_line(text))

    async def _read_lines(self) -> None:
        pieces: list[bytes] = []  # a line still coming, kept in pieces: never joined per read
        async for chunk in self.stdout:
            if b"\n" not in chunk:
                pieces.append(chunk)
                continue
            lines = chunk.split(b"\n")
            if pieces:
                lines[0] = b"".join((*pieces, lines[0]))
                pieces.clear()
            if lines[-1]:
                pieces.append(lines[-1])
            for line in lines[:-1]:
                try:
                    await self._deliver(line)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session is gone; only the drain remains

    async def _take_lines(self, lines: ServerLines, earlier: asyncio.StreamReader) -> None:
        try:
            before = await earlier.read()  # it ends once all that came before the switch is in
        except Exception:  # noqa: BLE001 — closed under the read (our shutdown): nothing came before
            before = b""
        lines.begin(before)
        while (line := await lines.next_line()) is not None:
            try:
                await self._deliver(line)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the session is gone; what the server still writes is dropped (``close``)

    async def stdout_reader(self) -> None:
        try:
            async with self.to_session:
                try:
                    if self.lines is not None:
                        await self._take_lines(*self.lines)
                    else:
                        await self._read_lines()
                finally:
                    if self.lines is not None:
                        self.lines[0].close()
                    await sdk_stdio._drain_stdout(self.process)
        except anyio.ClosedResourceError:
            pass  # our own shutdown closed the stdout stream under the read
        except (anyio.BrokenResourceError, ConnectionError):
            if not self.shutting_down:
                log.exception("Reading from the MCP server's stdout failed mid-session")
        finally:
            self.lane.end()

    async def stdin_writer(self) -> None:
        try:
            async with self.from_session:
                async for session_message in self.from_session:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.stdin.send((text + "\n").encode(self.params.encoding, self.params.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still be alive: the session must see the connection end.
            await self.to_session.aclose()
        finally:
            self.writer_done.set()

    async def shutdown(self) -> None:
        """As the SDK's: stop traffic, flush what was accepted, stop the server, release the streams."""
        self.session_reads.close()
        self.session_writes.close()
        with anyio.move_on_after(sdk_stdio._WRITER_FLUSH_TIMEOUT) as flush_scope:
            await self.writer_done.wait()
        if flush_scope.cancelled_caught:
            await anyio.lowlevel.cancel_shielded_checkpoint()
        await sdk_stdio._stop_server_process(self.process)
        await sdk_stdio._aclose_all(self.session_reads, self.session_writes, self.to_session, self.from_session)
        await anyio.lowlevel.checkpoint()
