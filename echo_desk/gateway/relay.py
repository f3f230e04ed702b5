"""The gateway's side of the socket: one connection to the running app, for one client.

``Relay.connect`` says hello and waits for the app's welcome (``AppUnreachable`` when it cannot:
no app, an app of another version, a refused client name). Requests overlap; each waits for its
own answer. When the connection ends, every request still waiting fails at once with
``AppUnreachable`` (never a hang), and the relay is ``closed`` for good: the backend decides
whether to connect again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from echo_desk.gateway import protocol
from echo_desk.gateway.local_socket import check_private, same_user
from echo_desk.gateway.protocol import LineWriter, Message, ProtocolError, read_message
from echo_desk.i18n import N_, Deferred, for_person

log = logging.getLogger(__name__)

#: How long connecting and the app's welcome may take (the app is local: it answers at once).
CONNECT_SECONDS = 5.0

Progress = Callable[[str], Awaitable[None]]


class AppUnreachable(Exception):
    """The running app cannot be reached (not running, gone, or it refused us); says why."""


class Relay:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._out = LineWriter(writer)
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self._progress: dict[int, Progress] = {}
        self._reading: asyncio.Task[None] | None = None
        self.closed = False
        self.why_closed = ""
        #: Called (on this loop) when the app says the client's tools changed.
        self.on_tools_changed: Callable[[], None] | None = None

    @classmethod
    async def connect(cls, path: Path, client: str, *, workspace: str = "", transport: str = "stdio") -> Relay:
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                reader, writer = await open_checked(path)
                protocol.read_in_small_chunks(writer.transport)
                relay = cls(reader, writer)
                await relay._out.send({"type": "hello", "version": protocol.PROTOCOL_VERSION, "client": client,
                                       "workspace": workspace, "transport": transport})
                welcome = await read_message(reader)
        except (OSError, TimeoutError, ProtocolError) as exc:
            raise AppUnreachable(_why(exc)) from None
        if welcome is None or welcome.get("type") != "welcome":
            relay._out.close()
            said = welcome.get("error") if welcome else "it closed the connection"
            raise AppUnreachable(f"Echo Desk refused the connection: {said}")
        relay._reading = asyncio.ensure_future(relay._read())
        return relay

    async def list_tools(self) -> list[dict[str, Any]]:
        answer = await self._request({"type": "list"})
        tools = answer.get("tools")
        if not isinstance(tools, list):
            raise AppUnreachable("Echo Desk sent no tool list")
        return tools

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
        """The ``CallToolResult`` (a JSON object). Cancelling withdraws the call in the app."""
        answer = await self._request({"type": "call", "name": name, "arguments": arguments}, progress)
        result = answer.get("result")
        if not isinstance(result, dict):
            raise AppUnreachable("Echo Desk sent no result")
        return result

    async def _request(self, message: Message, progress: Progress | None = None) -> Message:
        if self.closed:
            raise AppUnreachable(self.why_closed)
        request_id = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        if progress is not None:
            self._progress[request_id] = progress
        try:
            await self._out.send({**message, "id": request_id})
            answer = await future
        except ConnectionError as exc:
            self._end(f"the connection to Echo Desk failed: {exc}")
            raise AppUnreachable(self.why_closed) from None
        except asyncio.CancelledError:
            if not self.closed and message["type"] == "call":
                with contextlib.suppress(ConnectionError):
                    await asyncio.shield(self._out.send({"type": "cancel", "id": request_id}))
            raise
        finally:
            self._waiting.pop(request_id, None)
            self._progress.pop(request_id, None)
        if answer.get("type") == "error":
            raise AppUnreachable(f"Echo Desk could not do it: {answer.get('error')}")
        return answer

    async def _read(self) -> None:
        why = "Echo Desk closed the connection (it was quit)"
        try:
            while (message := await read_message(self._reader)) is not None:
                self._dispatch(message)
        except (ProtocolError, OSError) as exc:
            why = f"the connection to Echo Desk failed: {exc}"
        self._end(why)

    def _dispatch(self, message: Message) -> None:
        kind, request_id = message.get("type"), message.get("id")
        if kind == "tools_changed":
            if self.on_tools_changed is not None:
                self.on_tools_changed()
        elif kind == "progress":
            progress = self._progress.get(request_id) if isinstance(request_id, int) else None
            if progress is not None:
                _spawn(progress(str(message.get("message", ""))))
        elif isinstance(request_id, int):
            future = self._waiting.get(request_id)
            if future is not None and not future.done():
                future.set_result(message)

    def _end(self, why: str) -> None:
        if self.closed:
            return
        self.closed, self.why_closed = True, why
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(AppUnreachable(why))
        self._out.close()

    async def aclose(self) -> None:
        self._end("the gateway closed the connection")
        if self._reading is not None:
            self._reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reading


async def app_status(path: Path) -> Message:
    """The app's answer to ``status`` (clients connected); ``AppUnreachable`` when none runs."""
    try:
        async with asyncio.timeout(CONNECT_SECONDS):
            reader, writer = await open_checked(path)
            out = LineWriter(writer)
            await out.send({"type": "status", "id": 1})
            answer = await read_message(reader)
            out.close()
    except (OSError, TimeoutError, ProtocolError) as exc:
        raise AppUnreachable(_why(exc)) from None
    if answer is None or answer.get("type") != "status":
        raise AppUnreachable(for_person("Echo Desk did not answer the status request",
                                        N_("Echo Desk did not answer the status request")))
    return answer


async def open_checked(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the app's socket, only if it is in a private folder of ours and its
    listener is our user: every way of asking the app (a session, ``status``) trusts the same."""
    check_private(path.parent)
    reader, writer = await asyncio.open_unix_connection(str(path), limit=protocol.MAX_LINE_BYTES)
    sock = writer.get_extra_info("socket")
    if sock is None or not same_user(sock):
        writer.close()
        raise AppUnreachable(for_person(f"the socket {path} is not Echo Desk's: another user listens on it",
                                        N_("the socket {path} is not Echo Desk's: another user listens on it"),
                                        path=str(path)))
    return reader, writer


def _why(exc: BaseException) -> str:
    # English on the wire (a client passes it on to its model); the person's language in our CLI.
    if isinstance(exc, FileNotFoundError | ConnectionRefusedError):
        return for_person("Echo Desk is not running", N_("Echo Desk is not running"))
    if isinstance(exc, TimeoutError):
        return for_person("Echo Desk did not answer in time", N_("Echo Desk did not answer in time"))
    # A reason of ours (a socket folder others can enter) is said in the person's language too.
    said = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Deferred) else str(exc)
    return for_person(f"Echo Desk cannot be reached ({exc})", N_("Echo Desk cannot be reached ({error})"),
                      error=said)


_pending: set[asyncio.Task[Any]] = set()


def _spawn(coro: Awaitable[Any]) -> None:
    task = asyncio.ensure_future(coro)
    _pending.add(task)

    def done(t: asyncio.Task[Any]) -> None:
        _pending.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.debug("a progress notification was not sent: %s", t.exception())

    task.add_done_callback(done)
