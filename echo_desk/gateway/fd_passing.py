"""Passing a client's pipes between the gateway and the app over their socket (``SCM_RIGHTS``).

A message with fds is one marker byte carrying them. It is sent on a second handle of the
connection's socket (asyncio's transports offer no ``sendmsg``), and read the same way by a side
that has paused its transport's reading first: a buffered read would take the byte and close
the fds unseen.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import os
import socket

#: Flags for receiving fds: closed on exec where the system can (the app starts MCP servers and
#: commands; a child holding a client's stdout would keep the client from its end of file).
_RECEIVE_FLAGS = getattr(socket, "MSG_CMSG_CLOEXEC", 0)


def send_fds(writer: asyncio.StreamWriter, marker: bytes, fds: list[int]) -> None:
    """Send ``fds`` with the one byte ``marker``; ``OSError`` when nothing was sent (a message
    with fds goes whole or not at all)."""
    transport_socket = writer.get_extra_info("socket")
    if transport_socket is None:
        raise OSError("no socket to pass the fds on")
    # The socket is non-blocking and empty (the other side has answered everything sent), so
    # one byte goes at once.
    with socket.socket(fileno=os.dup(transport_socket.fileno())) as sock:
        sock.setblocking(False)
        socket.send_fds(sock, [marker], fds)


async def receive_fds(writer: asyncio.StreamWriter, marker: bytes, timeout: float) -> list[int]:
    """The fds sent with ``marker`` (the transport's reading paused); ``OSError`` when what came
    is not that, ``TimeoutError`` when nothing came in time."""
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
            async with asyncio.timeout(timeout):
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
    if data != marker or flags & socket.MSG_CTRUNC:
        close_all(received)
        raise OSError("not the fds that were said to come")
    return received


def close_all(fds: list[int] | tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
