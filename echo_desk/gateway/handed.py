"""The app's side of ``handoff``: take a gateway's client pipes and serve its MCP session on them.

The session is served as the gateway would have served it (``stdio_gateway.McpSession``: the
handshake by hand, the SDK's server for the rest; the size cap, the bad-line answers and the
write deadline of ``stdio``), its calls going straight to the client's ``ClientSession`` instead
of over the socket. It ends when the client closes its input or stops reading, or when the
gateway's connection closes (the client killed its server): then every call still running is
withdrawn, as when a relaying gateway goes away. Ending it closes the pipes and the connection,
and the gateway, which kept no copy of them, exits.

Only pipes, sockets and terminals are taken (what a client starts a server with): anything else
(a file, a folder) is refused, closed unread, and the gateway relays as before.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import os
import socket
import stat
from collections.abc import Callable
from typing import Any

from echo_desk.gateway.handoff import HANDOFF_SECONDS
from echo_desk.gateway.protocol import LineWriter, read_message
from echo_desk.gateway.session import ClientSession
from echo_desk.gateway.stdio import WRITE_DEADLINE_SECONDS, pipe_wire
from echo_desk.gateway.stdio_gateway import McpSession
from echo_desk.gateway.tools_backend import Progress

log = logging.getLogger(__name__)

#: Flags for receiving the fds: closed on exec where the system can (the app starts MCP servers
#: and commands; a child holding the client's stdout would keep the client from its end of file).
_RECEIVE_FLAGS = getattr(socket, "MSG_CMSG_CLOEXEC", 0)
#: The longest write deadline a gateway may ask for its client (a client that never reads holds
#: its unsent answers in the app's memory until then).
LONGEST_WRITE_DEADLINE = 10 * WRITE_DEADLINE_SECONDS


def asked_deadline(hello: dict[str, Any]) -> float:
    """The write deadline the gateway's settings give its client (``stdio.write_deadline``), within bounds."""
    asked = hello.get("write_deadline")
    if not isinstance(asked, int | float) or isinstance(asked, bool) or asked != asked:
        return WRITE_DEADLINE_SECONDS
    return min(max(0.1, float(asked)), LONGEST_WRITE_DEADLINE)


class InAppBackend:
    """A handed session's calls, straight to its ``ClientSession``."""

    def __init__(self, session: ClientSession, listed: Callable[[list[dict[str, Any]]], None]) -> None:
        self.session = session
        self._listed = listed

    async def list_tools(self) -> list[dict[str, Any]]:
        tools = self.session.tools()
        self._listed(tools)
        return tools

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        return await self.session.call(name, arguments, progress)


async def receive_pipes(writer: asyncio.StreamWriter, welcome: dict[str, Any]) -> tuple[int, int] | None:
    """Say ``welcome`` (with ``handoff``) and take the two fds the gateway sends then; ``None``
    (after saying ``refused``) when they do not come in time or are not a client's pipes."""
    transport = writer.transport
    assert isinstance(transport, asyncio.ReadTransport)  # a socket's: it reads and writes
    transport.pause_reading()  # the byte carrying the fds must not be read without them
    out = LineWriter(writer)
    await out.send({**welcome, "handoff": True})
    fds: list[int] = []
    why = ""
    try:
        fds = await _receive_fds(writer)
        if len(fds) != 2 or not all(_a_clients_pipe(fd) for fd in fds):
            why = "the gateway's stdin and stdout must be pipes, sockets or a terminal"
    except (OSError, TimeoutError) as exc:
        why = f"no file descriptors came ({exc or 'in time'})"
    if why:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ConnectionError):
            await out.send({"type": "refused", "error": why})
        transport.resume_reading()
        return None
    transport.resume_reading()
    return fds[0], fds[1]


async def _receive_fds(writer: asyncio.StreamWriter) -> list[int]:
    transport_socket = writer.get_extra_info("socket")
    if transport_socket is None:
        raise OSError("no socket")
    loop = asyncio.get_running_loop()
    with socket.socket(fileno=os.dup(transport_socket.fileno())) as sock:
        sock.setblocking(False)
        readable: asyncio.Future[None] = loop.create_future()

        def ready() -> None:
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(sock.fileno(), ready)
        try:
            async with asyncio.timeout(HANDOFF_SECONDS):
                await readable
        finally:
            loop.remove_reader(sock.fileno())
        fd_bytes = array.array("i").itemsize
        data, ancillary, flags, _ = sock.recvmsg(1, socket.CMSG_SPACE(4 * fd_bytes), _RECEIVE_FLAGS)
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fd_bytes])
    received = list(fds)
    for fd in received:
        os.set_inheritable(fd, False)  # where MSG_CMSG_CLOEXEC is not known
    if data != b"F" or flags & socket.MSG_CTRUNC:
        for fd in received:
            with contextlib.suppress(OSError):
                os.close(fd)
        raise OSError("not the gateway's fds")
    return received


def _a_clients_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


async def serve_handed(fds: tuple[int, int], session: McpSession, reader: asyncio.StreamReader,
                       deadline: float) -> None:
    """Serve ``session`` on the client's pipes until it ends or the gateway's connection does."""
    async with pipe_wire(*fds, deadline) as wire:
        serving = asyncio.ensure_future(session.serve(wire))
        gateway_gone = asyncio.ensure_future(_until_closed(reader))
        try:
            await asyncio.wait([serving, gateway_gone], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (serving, gateway_gone):
                task.cancel()
            for task in (serving, gateway_gone):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if serving.done() and not serving.cancelled() and serving.exception() is not None:
                log.error("a handed gateway session failed", exc_info=serving.exception())


async def _until_closed(reader: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await read_message(reader) is not None:
            pass  # the gateway says nothing after the handoff
