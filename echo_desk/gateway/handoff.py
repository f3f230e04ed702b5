"""The gateway hands its client's pipes to the running app, which then speaks MCP on them itself.

Relaying costs every message two extra hops (the client's pipe into this process, this process
into the app's socket, and back). When the app runs, ``offer`` instead passes this process's
stdin and stdout to it over the private socket (``SCM_RIGHTS``; the socket's peer is checked to
be our user, as for any session), and the app serves the session on them (``handed``). This
process then holds no copy of the pipes and only waits: the client watches it, and it ends when
the app ends the session (the client closed its input, the app quit or died). Because it keeps
no copy, the app going away closes the client's pipes at once: the client sees its server end,
never a hang.

The order, each step answered before the next (the app reads the fds with its socket's reading
paused, so none of them are lost in a buffered read):

    gateway → app   hello {..., handoff: true, write_deadline}
    app → gateway   welcome {..., handoff: true}    (else a plain welcome: the relay is used)
    gateway → app   one byte, carrying fds 0 and 1
    app → gateway   taken {}                        (it serves them; nothing more is said)
                    refused {error}                 (it closed them unread: the relay is used)

Fails closed: until the fds are sent, anything unexpected means the relay (``KEPT``); once they
are sent, only ``refused`` (the app closed them without reading) does, and anything else
(``LOST``: no answer, the connection lost) ends this process without reading its stdin, since
the app may be reading it. ``ECHO_DESK_GATEWAY_HANDOFF=0`` keeps the relay always.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
import socket
from pathlib import Path

from echo_desk.gateway import protocol
from echo_desk.gateway.protocol import LineWriter, ProtocolError, read_message
from echo_desk.gateway.relay import CONNECT_SECONDS, AppUnreachable, open_checked
from echo_desk.gateway.stdio import write_deadline

HANDOFF_ENV = "ECHO_DESK_GATEWAY_HANDOFF"
#: How long the app may take to say it took (or refused) the fds.
HANDOFF_SECONDS = 5.0


class Outcome(enum.Enum):
    HANDED = "the app served the session on the client's pipes; it has ended"
    KEPT = "the pipes are still this process's alone: serve them (the relay)"
    LOST = "the app may hold the pipes: do not read them"


def wanted() -> bool:
    return os.environ.get(HANDOFF_ENV, "1") != "0"


async def offer(path: Path, client: str, workspace: str) -> Outcome:
    """Hand fds 0 and 1 to the app at ``path`` and wait for the session's end."""
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            reader, writer = await open_checked(path)
            out = LineWriter(writer)
            await out.send({"type": "hello", "version": protocol.PROTOCOL_VERSION, "client": client,
                            "workspace": workspace, "transport": "stdio", "handoff": True,
                            # This gateway's setting, as if it served the pipes itself.
                            "write_deadline": write_deadline()})
            welcome = await read_message(reader)
    except (OSError, TimeoutError, ProtocolError, AppUnreachable):
        return Outcome.KEPT  # no app, or not one we trust: the relay says why to the client
    if welcome is None or welcome.get("type") != "welcome" or welcome.get("handoff") is not True:
        writer.close()
        return Outcome.KEPT
    try:
        _send_stdio(writer)
    except OSError:  # nothing was sent (a message with fds goes whole or not at all)
        writer.close()
        return Outcome.KEPT
    try:
        async with asyncio.timeout(HANDOFF_SECONDS):
            answer = await read_message(reader)
    except (OSError, TimeoutError, ProtocolError):
        answer = None
    kind = answer.get("type") if answer is not None else None
    if kind == "refused":
        writer.close()
        return Outcome.KEPT
    _let_go_of_stdio()
    if kind != "taken":
        writer.close()
        return Outcome.LOST
    with contextlib.suppress(OSError, ProtocolError):
        while await read_message(reader) is not None:
            pass  # the app says nothing more: the end of the connection is the end of the session
    writer.close()
    return Outcome.HANDED


def _send_stdio(writer: asyncio.StreamWriter) -> None:
    transport_socket = writer.get_extra_info("socket")
    if transport_socket is None:
        raise OSError("no socket to pass the fds on")
    # A second handle on the same socket: the transport's own offers no sendmsg. The socket is
    # non-blocking and empty (the app has answered everything sent), so one byte goes at once.
    with socket.socket(fileno=os.dup(transport_socket.fileno())) as sock:
        sock.setblocking(False)
        socket.send_fds(sock, [b"F"], [0, 1])


def _let_go_of_stdio() -> None:
    """Keep no copy of the client's pipes: fd 0 reads /dev/null, fd 1 writes to stderr. The app's
    copies are then the only ones, so its end (or death) is the client's end of file."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
