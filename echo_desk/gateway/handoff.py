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

The hand-back: with ``take_back`` in its hello, the gateway asks for the session back when the
app quits in an orderly way (``handed.hand_back``: the app answers the calls still running,
writes what it has to write, then sends the session's opening lines, the bytes it read and did
not handle, and the pipes). This process puts the pipes back on fds 0 and 1 and goes on serving
the session (``RETURNED``), without the app: calls the rules allow run, those that need the
person are refused at once saying why, and it reconnects when the app is back, as a relaying
gateway does. Anything else at that point (the app killed, a step that never comes) is today's
end: the app's copies close and the client sees its server end.
``ECHO_DESK_GATEWAY_TAKE_BACK=0`` leaves the request out.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import enum
import os
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.gateway import protocol
from echo_desk.gateway.fd_passing import close_all, receive_fds, send_fds
from echo_desk.gateway.protocol import LineWriter, ProtocolError, read_message
from echo_desk.gateway.relay import CONNECT_SECONDS, AppUnreachable, open_checked
from echo_desk.gateway.stdio import write_deadline

HANDOFF_ENV = "ECHO_DESK_GATEWAY_HANDOFF"
TAKE_BACK_ENV = "ECHO_DESK_GATEWAY_TAKE_BACK"
#: How long the app may take to say it took (or refused) the fds.
HANDOFF_SECONDS = 5.0


class Outcome(enum.Enum):
    HANDED = "the app served the session on the client's pipes; it has ended"
    KEPT = "the pipes are still this process's alone: serve them (the relay)"
    LOST = "the app may hold the pipes: do not read them"
    RETURNED = "the app quit and handed the pipes back: they are fds 0 and 1 again; serve the rest"


@dataclass
class Handoff:
    outcome: Outcome
    #: When ``RETURNED``: whether the app served the session by hand (else the SDK did), its
    #: ``initialize`` and ``notifications/initialized`` lines as the client sent them, and the
    #: bytes of the client's the app read but did not handle.
    by_hand: bool = True
    opening: list[bytes] = field(default_factory=list)
    unread: bytes = b""


def wanted() -> bool:
    return os.environ.get(HANDOFF_ENV, "1") != "0"


def take_back_wanted() -> bool:
    return os.environ.get(TAKE_BACK_ENV, "1") != "0"


async def offer(path: Path, client: str, workspace: str) -> Handoff:
    """Hand fds 0 and 1 to the app at ``path`` and wait for the session's end."""
    return await _offer(path, client, workspace, take_back_wanted())


async def _offer(path: Path, client: str, workspace: str, take_back: bool) -> Handoff:
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            reader, writer = await open_checked(path)
            out = LineWriter(writer)
            await out.send({"type": "hello", "version": protocol.PROTOCOL_VERSION, "client": client,
                            "workspace": workspace, "transport": "stdio", "handoff": True,
                            "take_back": take_back,
                            # This gateway's setting, as if it served the pipes itself.
                            "write_deadline": write_deadline()})
            welcome = await read_message(reader)
    except (OSError, TimeoutError, ProtocolError, AppUnreachable):
        return Handoff(Outcome.KEPT)  # no app, or not one we trust: the relay says why to the client
    if welcome is None or welcome.get("type") != "welcome" or welcome.get("handoff") is not True:
        writer.close()
        return Handoff(Outcome.KEPT)
    try:
        send_fds(writer, b"F", [0, 1])
    except OSError:  # nothing was sent (a message with fds goes whole or not at all)
        writer.close()
        return Handoff(Outcome.KEPT)
    try:
        async with asyncio.timeout(HANDOFF_SECONDS):
            answer = await read_message(reader)
    except (OSError, TimeoutError, ProtocolError):
        answer = None
    kind = answer.get("type") if answer is not None else None
    if kind == "refused":
        writer.close()
        return Handoff(Outcome.KEPT)
    _let_go_of_stdio()
    if kind != "taken":
        writer.close()
        return Handoff(Outcome.LOST)
    returned: Handoff | None = None
    with contextlib.suppress(OSError, ProtocolError):
        while (message := await read_message(reader)) is not None:
            # The app says nothing more but, when it quits and we asked, that it hands the pipes back.
            if take_back and message.get("type") == "hand_back":
                returned = await _take_back(message, writer, out)
                break
    writer.close()
    return returned or Handoff(Outcome.HANDED)


async def _take_back(message: protocol.Message, writer: asyncio.StreamWriter, out: LineWriter) -> Handoff | None:
    """Take the pipes the quitting app hands back and put them on fds 0 and 1; ``None`` (and the
    session ends here) when they do not come whole."""
    try:
        unread = base64.b64decode(message["unread"], validate=True)
        opening = [base64.b64decode(line, validate=True) for line in message["opening"][:2]]
        by_hand = message["by_hand"]
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(by_hand, bool):
        return None
    transport = writer.transport
    assert isinstance(transport, asyncio.ReadTransport)
    transport.pause_reading()  # the byte carrying the fds must not be read without them
    try:
        await out.send({"type": "ready"})
        fds = await receive_fds(writer, b"B", HANDOFF_SECONDS)
    except (OSError, TimeoutError, ConnectionError):
        return None
    if len(fds) != 2:
        close_all(fds)
        return None
    for fd, onto in zip(fds, (0, 1), strict=True):
        os.dup2(fd, onto)
        os.close(fd)
    with contextlib.suppress(ConnectionError):
        await out.send({"type": "took"})
    return Handoff(Outcome.RETURNED, by_hand, opening, unread)


def _let_go_of_stdio() -> None:
    """Keep no copy of the client's pipes: fd 0 reads /dev/null, fd 1 writes to stderr. The app's
    copies are then the only ones, so its end (or death) is the client's end of file."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
