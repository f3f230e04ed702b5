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

When the app quits in an orderly way and the gateway asked for it (``take_back``), the session is
handed back rather than ended (``hand_back``): the gateway goes on serving it without the app.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import stat
from collections.abc import Callable
from typing import Any, NamedTuple

from echo_desk.gateway.fd_passing import close_all, receive_fds, send_fds
from echo_desk.gateway.hand_back_failure import HandBackFailure, NotHandedBack
from echo_desk.gateway.handoff import HANDOFF_SECONDS
from echo_desk.gateway.protocol import LineWriter, ProtocolError, read_message
from echo_desk.gateway.results import error_result
from echo_desk.gateway.session import ClientSession
from echo_desk.gateway.stdio import WRITE_DEADLINE_SECONDS, Serving, Wire, pipe_wire
from echo_desk.gateway.stdio_gateway import McpSession
from echo_desk.gateway.tools_backend import Progress

log = logging.getLogger(__name__)

#: The longest write deadline a gateway may ask for its client (a client that never reads holds
#: its unsent answers in the app's memory until then).
LONGEST_WRITE_DEADLINE = 10 * WRITE_DEADLINE_SECONDS


def asked_deadline(hello: dict[str, Any]) -> float:
    """The write deadline the gateway's settings give its client (``stdio.write_deadline``), within bounds."""
    asked = hello.get("write_deadline")
    if not isinstance(asked, int | float) or isinstance(asked, bool) or asked != asked:
        return WRITE_DEADLINE_SECONDS
    return min(max(0.1, float(asked)), LONGEST_WRITE_DEADLINE)


#: How long handing a session back may take in all: its running calls answered, its answers
#: written, the gateway ready and the fds taken. Past it the pipes are closed, as without it.
HAND_BACK_SECONDS = 5.0

#: The answer to a call still running when the app quits and hands the session back (English:
#: it goes to the client, which passes it on to its model).
QUIT_WHILE_RUNNING = (
    "Echo Desk quit while this call of {tool} ran, so it was withdrawn (if it was waiting for the "
    "person, they never answered). Whether any part of it ran is in Echo Desk's activity log. "
    "Open Echo Desk (run echo-desk) and call again.")

#: The answer to a call that comes once the app has begun to quit: it is not run (English, as above).
QUIT_BEFORE_IT_RAN = (
    "Echo Desk is quitting, so this call of {tool} was not run. Open Echo Desk (run echo-desk) and "
    "call again.")


def _not_quitting() -> bool:
    return False


class InAppBackend:
    """A handed session's calls, straight to its ``ClientSession``."""

    def __init__(self, session: ClientSession, listed: Callable[[list[dict[str, Any]]], None],
                 app_quitting: Callable[[], bool] = _not_quitting) -> None:
        self.session = session
        self._listed = listed
        #: The app has begun to quit: a call that comes now is not run (the session is handed back
        #: or ended a moment later; begun now, its side effects would outlast the person's quit).
        self._app_quitting = app_quitting
        #: The tasks (the session's own, one per request) running a call now, and those of them
        #: the quit withdrew.
        self._running: set[asyncio.Task[Any]] = set()
        self._withdrawn: set[asyncio.Task[Any]] = set()
        self.quitting = False

    def quit(self) -> None:
        """The app quits: every call still running is withdrawn, and answers so (``QUIT_WHILE_RUNNING``)."""
        self.quitting = True
        for task in self._running:
            self._withdrawn.add(task)
            task.cancel()

    async def list_tools(self) -> list[dict[str, Any]]:
        tools = self.session.tools()
        self._listed(tools)
        return tools

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        if self.quitting or self._app_quitting():
            return error_result(QUIT_BEFORE_IT_RAN.format(tool=name))
        # Run in the request's own task, not a task of its own (one more task and turn of the
        # loop on every call): the quit cancels that task, and tells its cancel apart from the
        # client's (which cancels it too) by counting them.
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        try:
            return await self.session.call(name, arguments, progress)
        except asyncio.CancelledError:
            if task not in self._withdrawn or task.cancelling() > 1:
                raise  # the client withdrew it (too), or its session ends: no answer is expected
        finally:
            self._running.discard(task)
            if task in self._withdrawn:
                self._withdrawn.discard(task)
                task.uncancel()  # the quit's cancel is spent here, whatever the call did with it
        # Withdrawn by the quit: answered once its record (cancelled) is in the audit.
        await self.session.engine.dispatcher.recorded(f"{name} (for {self.session.client}, withdrawn on quit)")
        return error_result(QUIT_WHILE_RUNNING.format(tool=name))


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
        fds = await receive_fds(writer, b"F", HANDOFF_SECONDS)
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


def _a_clients_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class Ending(NamedTuple):
    """What became of a handed session."""

    handed_back: bool  # its gateway took it back (the app quit): the session goes on without the app
    said: str  # for the log
    #: Handing it back was tried and failed (why): its pipes are closed instead.
    not_handed_back: NotHandedBack | None = None

    @classmethod
    def not_handed(cls, why: NotHandedBack) -> Ending:
        """Handing it back failed (``why``): its pipes are closed."""
        return cls(False, f"not handed back ({why}): its pipes are closed", why)


async def serve_handed(fds: tuple[int, int], session: McpSession, reader: asyncio.StreamReader,
                       deadline: float, out: LineWriter | None = None,
                       quitting: asyncio.Event | None = None) -> Ending:
    """Serve ``session`` on the client's pipes until it ends or the gateway's connection does.
    With ``quitting`` (the gateway asked to take the session back), the app quitting hands the
    pipes back to the gateway on ``out``."""
    outcome = Ending(False, "ended")
    async with pipe_wire(*fds, deadline) as wire:
        seen = Serving()
        serving = asyncio.ensure_future(session.serve(wire, seen))
        gateway_gone = asyncio.ensure_future(_until_closed(reader))
        quit_asked = asyncio.ensure_future(quitting.wait()) if quitting is not None else None
        watched = [serving, gateway_gone, *([quit_asked] if quit_asked is not None else [])]
        try:
            await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            if quit_asked is not None and quit_asked.done() and not serving.done() and not gateway_gone.done() \
                    and out is not None and isinstance(session.backend, InAppBackend):
                gateway_gone.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await gateway_gone
                why = await hand_back(wire, seen, session.backend, reader, out)
                outcome = (Ending.not_handed(why) if why is not None
                           else Ending(True, "handed back to its gateway"))
        finally:
            for task in watched:
                task.cancel()
            for task in watched:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if serving.done() and not serving.cancelled() and serving.exception() is not None:
                log.error("a handed gateway session failed", exc_info=serving.exception())
    return outcome


async def hand_back(wire: Wire, seen: Serving, backend: InAppBackend, reader: asyncio.StreamReader,
                    out: LineWriter) -> NotHandedBack | None:
    """Give the client's pipes back to its gateway, the app quitting: ``None`` when it took them,
    else why not (the pipes are then closed, as without the hand-back). The session's running calls
    answer ``QUIT_WHILE_RUNNING`` first; the bytes it read and did not handle go with the pipes.

        app → gateway   hand_back {by_hand, opening: [initialize, initialized], unread}   (base64)
        gateway → app   ready {}                (it paused reading: the next byte carries fds)
        app → gateway   one byte "B", carrying the client's in and out
        app ← gateway   took {}
    """
    if seen.hand is None:
        return NotHandedBack(HandBackFailure.NOT_BEGUN)
    by_hand, opening = seen.hand.begun
    kept: list[int] = []
    try:
        async with asyncio.timeout(HAND_BACK_SECONDS):
            unread = await seen.stop_reading()
            if unread is None:
                return NotHandedBack(HandBackFailure.INPUT_CUT)
            backend.quit()
            await seen.answered()  # the withdrawn calls' answers among them, each written whole
            await wire.flush()
            unread += await wire.halt()
            kept = [os.dup(wire.fds[0]), os.dup(wire.fds[1])]
            await out.send({"type": "hand_back", "unread": _b64(unread), "by_hand": by_hand,
                            "opening": [_b64(line) for line in opening]})
            ready = await read_message(reader)
            if ready is None or ready.get("type") != "ready":
                return NotHandedBack(HandBackFailure.GATEWAY_NOT_READY)
            send_fds(out.writer, b"B", kept)
            took = await read_message(reader)
            if took is None or took.get("type") != "took":
                return NotHandedBack(HandBackFailure.GATEWAY_DID_NOT_TAKE)
            return None
    except TimeoutError:
        return NotHandedBack(HandBackFailure.TOO_SLOW, seconds=HAND_BACK_SECONDS)
    except (OSError, ProtocolError) as exc:
        return NotHandedBack(HandBackFailure.CONNECTION_FAILED, str(exc))
    finally:
        close_all(kept)  # sent or not, the app keeps no copy: the gateway's are the client's pipes now


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


async def _until_closed(reader: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await read_message(reader) is not None:
            pass  # the gateway says nothing after the handoff
