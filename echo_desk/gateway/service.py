"""The app's side of the gateway: accepts ``echo-desk gateway`` connections on the private socket.

Each connection is one client (``hello`` names it) with a ``ClientSession``: its calls run
concurrently through the dispatcher; ``cancel`` or the connection closing withdraws them. When the
tools a client sees change (an MCP server connected, a tool blocked after it changed, the
person's switches), the client is told (``tools_changed``) so it can list them again.

Qt-free: the app gives it its ``Host`` (the approval dialog) and runs it on a loop of its own
thread, or the MCP manager's, never on the window's.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from echo_desk import __version__
from echo_desk.agent.host import Host
from echo_desk.gateway import protocol
from echo_desk.gateway.clients import BadClientName, client_key, display_name
from echo_desk.gateway.hand_back_failure import HandBackFailure, NotHandedBack
from echo_desk.gateway.handed import (
    HAND_BACK_SECONDS,
    QUIT_BEFORE_IT_RAN,
    QUIT_WHILE_RUNNING,
    Ending,
    InAppBackend,
    asked_deadline,
    receive_pipes,
    serve_handed,
)
from echo_desk.gateway.http_failure import listen_failure
from echo_desk.gateway.left_out import LeftOut
from echo_desk.gateway.local_socket import listening_socket, same_user, socket_path
from echo_desk.gateway.protocol import LineWriter, Message, ProtocolError, read_message
from echo_desk.gateway.results import error_result
from echo_desk.gateway.session import (
    APPROVALS_AT_ONCE,
    KEEPALIVE_SECONDS,
    PENDING_PER_CLIENT,
    ApprovalTurns,
    ClientSession,
    Engine,
    WaitingRoom,
)
from echo_desk.gateway.stdio_gateway import McpSession
from echo_desk.store.audit import session_handed_back, session_not_handed_back
from echo_desk.store.paths import real_own_places

if TYPE_CHECKING:
    from echo_desk.gateway.http import HttpGateway

log = logging.getLogger(__name__)

#: A connection must say who it is this soon.
HELLO_DEADLINE_SECONDS = 10.0

#: How long the quit waits for a session being handed back before it ends its serving: the
#: hand-back's own bound, and a second for it to tidy up after running out of it.
HAND_BACK_CUTOFF_SECONDS = HAND_BACK_SECONDS + 1


def workspace_of(raw: object) -> Path | None:
    """The client's working folder as a workspace root: an existing absolute folder that is not
    the home folder nor holds it (``/``, ``/home``: every file of the person's would be "in the
    workspace", to read unasked, for its grants and ``@workspace`` rules), and neither is, is
    inside nor holds one of Echo Desk's own places (a client started in ``~/.config`` or
    ``~/.local`` read Echo Desk's settings, with its servers' keys, the person's conversations
    and the keyrings unasked)."""
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw)
    if not path.is_absolute():
        return None
    try:
        resolved = path.resolve(strict=True)
    except OSError:
        return None
    if not resolved.is_dir() or resolved == Path(resolved.anchor) or Path.home().resolve().is_relative_to(resolved):
        return None
    for _reason, own in real_own_places():
        if resolved.is_relative_to(own) or own.is_relative_to(resolved):
            return None
    return resolved


class _Connection:
    def __init__(self, session: ClientSession, out: LineWriter) -> None:
        self.session = session
        self.out = out
        #: Calls in flight by the client's request id (what ``cancel`` names).
        self.calls: dict[Any, asyncio.Task[None]] = {}
        #: Notices on their way out (kept so they are not collected half-sent).
        self.notices: set[asyncio.Task[None]] = set()
        self.tools_signature = ""
        #: The client's pipes, when its gateway handed them over (``handoff``): the session is
        #: served on them here, and told of changed tools by ``tools_changed``.
        self.pipes: tuple[int, int] | None = None
        self.tools_changed: Callable[[], None] | None = None
        self.serving: asyncio.Task[Any] | None = None
        self.write_deadline = 0.0
        #: Set when the app quits: a handed session whose gateway asked for it (``take_back``) is
        #: handed back to it rather than ended.
        self.quitting: asyncio.Event | None = None
        #: The MCP servers still starting when the client listed its tools (left out of the list).
        self.left_out = LeftOut(session.client)

    def track(self, request_id: Any, task: asyncio.Task[None]) -> None:
        self.calls[request_id] = task
        task.add_done_callback(functools.partial(self._forget, request_id))

    def _forget(self, request_id: Any, task: asyncio.Task[None]) -> None:
        if self.calls.get(request_id) is task:
            del self.calls[request_id]

    def notice(self, message: Message) -> None:
        task = asyncio.ensure_future(_try_send(self.out, message))
        self.notices.add(task)
        task.add_done_callback(self.notices.discard)


class GatewayService:
    """``await start()`` on a running loop, or ``start_in_thread()``; ``close()`` when done."""

    def __init__(self, engine: Engine, person: Host, *, path: Path | None = None,
                 keepalive: float = KEEPALIVE_SECONDS) -> None:
        self.engine = engine
        self.person = person
        self.path = path or socket_path()
        self.keepalive = keepalive
        self._connections: set[_Connection] = set()
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self._http: HttpGateway | None = None
        self._http_task: asyncio.Task[None] | None = None
        #: Why the HTTP gateway the settings ask for is not running ('' when it is, or is off): the
        #: person's sentence (``deferred``), shown where they switch it on (Settings › Connected apps).
        self.http_error = ""
        self._applying: set[asyncio.Task[None]] = set()
        #: Each client's turns in front of the person (``APPROVALS_AT_ONCE``) and bound on its calls
        #: waiting for them (``PENDING_PER_CLIENT``), made on this loop; every client's in ``_waiting``.
        self._approval_turns: dict[str, ApprovalTurns] = {}
        self._waiting = WaitingRoom()
        #: Set when the app quits: a call it withdraws is answered so (``QUIT_WHILE_RUNNING``), and
        #: one that comes after, relayed or on a handed session, is not run (``QUIT_BEFORE_IT_RAN``).
        self._quitting = False

    # -- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        """Listen on this loop (``OSError`` when another app already does)."""
        self._loop = asyncio.get_running_loop()
        sock = listening_socket(self.path)
        self._server = await asyncio.start_unix_server(self._serve, sock=sock, limit=protocol.MAX_LINE_BYTES)
        self._watch_tools()
        await self.apply_http_setting()
        log.info("gateway listening on %s", self.path)

    def start_in_thread(self, timeout: float = 10.0) -> None:
        """Run on a loop of its own, on a thread of its own (the app)."""
        loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="echo-desk-gateway", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.start(), loop).result(timeout)

    def start_on(self, loop: asyncio.AbstractEventLoop, timeout: float = 10.0) -> None:
        """Run on ``loop`` (already running on another thread, e.g. the MCP manager's)."""
        asyncio.run_coroutine_threadsafe(self.start(), loop).result(timeout)

    # -- the optional HTTP transport ------------------------------------------------------------
    async def start_http(self, port: int) -> None:
        """Serve streamable HTTP on 127.0.0.1:``port`` too (each client by its bearer token),
        relaying through this service's own socket like any gateway. ``OSError`` when the port is
        taken."""
        from echo_desk.gateway.backend import AppBackend
        from echo_desk.gateway.http import HttpGateway

        await self.stop_http()
        gateway = HttpGateway(port, lambda: list(self.engine.settings.current.gateway.clients),
                              lambda client: AppBackend(self.path, client, transport="http"))
        ready = asyncio.Event()
        task = asyncio.ensure_future(gateway.serve(ready))
        waiting = asyncio.ensure_future(ready.wait())
        await asyncio.wait([task, waiting], timeout=10, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()  # a port that is taken never sets ``ready``: no waiter left behind
        if task.done():
            task.result()  # raises why it could not listen
        if not ready.is_set():
            gateway.stop()
            raise OSError(f"the HTTP gateway did not start on 127.0.0.1:{port}")
        self._http, self._http_task = gateway, task

    async def stop_http(self) -> None:
        # ``http_port`` says None only once the listening socket is closed (the server's task
        # ended): a caller that waits for None may then rely on the port being free.
        gateway, task = self._http, self._http_task
        if gateway is not None and task is not None:
            gateway.stop()
            await asyncio.wait([task], timeout=10)
        if self._http is gateway:
            self._http, self._http_task = None, None

    @property
    def http_port(self) -> int | None:
        return self._http.port if self._http is not None else None

    async def apply_http_setting(self) -> None:
        """Start, move or stop the HTTP gateway as ``Settings.gateway`` says now."""
        current = self.engine.settings.current.gateway
        wanted = current.http_port if current.http_enabled else None
        if wanted == self.http_port:
            if wanted is None:  # switched off after it failed: no failure to show any more
                self.http_error = ""
            return
        if wanted is None:
            await self.stop_http()
            self.http_error = ""
            return
        try:
            await self.start_http(wanted)
            self.http_error = ""
        except OSError as exc:
            self.http_error = listen_failure(wanted, exc)
            log.warning("the HTTP gateway is not running: %s", exc)

    def _follow_http_setting(self) -> None:
        task = asyncio.ensure_future(self.apply_http_setting())
        self._applying.add(task)
        task.add_done_callback(self._applying.discard)

    async def aclose(self) -> None:
        self._quitting = True
        for stop in self._unsubscribe:
            stop()
        self._unsubscribe.clear()
        if self._server is not None:
            self._server.close()
        # The relayed calls first, the HTTP gateway's among them: each is answered that Echo Desk
        # quit, which ends its HTTP request. (Stopped first, the HTTP server waited for requests
        # that were answered only after it: the quit stalled 10 s and gave up on the rest.)
        relayed = [t for c in list(self._connections) if c.serving is None for t in c.calls.values()]
        for task in relayed:
            task.cancel()
        if relayed:
            await asyncio.wait(relayed, timeout=5)
        await self.stop_http()
        # A handed session's calls are its own: ending its serving withdraws them and closes its
        # pipes, unless its gateway asked to take it back: then the serving hands it back, and
        # is ended as the others only if that takes too long.
        handing = [c.serving for c in list(self._connections)
                   if c.serving is not None and c.quitting is not None]
        for connection in list(self._connections):
            if connection.quitting is not None:
                connection.quitting.set()
        tasks = [t for c in list(self._connections) for t in (*c.calls.values(), c.serving)
                 if t is not None and t not in handing]
        for task in tasks:
            task.cancel()
        if handing:
            _, late = await asyncio.wait(handing, timeout=HAND_BACK_CUTOFF_SECONDS)
            for task in late:
                task.cancel()
        if tasks or handing:
            await asyncio.wait([*tasks, *handing], timeout=5)
        for connection in list(self._connections):
            connection.out.close()
        self.path.unlink(missing_ok=True)

    async def shutdown(self, timeout: float = 10.0) -> None:
        """From any loop: stop listening, withdraw every call, end the service's own thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            if asyncio.get_running_loop() is loop:
                await asyncio.wait_for(self.aclose(), timeout)
            else:
                await asyncio.wait_for(asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.aclose(), loop)),
                                       timeout)
        except (TimeoutError, RuntimeError):
            log.warning("the gateway did not close in time")
        self._end_thread(timeout)

    def close(self, timeout: float = 10.0) -> None:
        """From a thread without a running loop (tests, scripts): like ``shutdown``."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            asyncio.run_coroutine_threadsafe(self.aclose(), loop).result(timeout)
        except (TimeoutError, RuntimeError):
            log.warning("the gateway did not close in time")
        self._end_thread(timeout)

    def _end_thread(self, timeout: float) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if not thread.is_alive():
            loop.close()
        self._thread = None

    # -- what clients are connected -----------------------------------------------------------
    def clients(self) -> list[dict[str, Any]]:
        return [{
            "client": c.session.client, "name": display_name(c.session.client),
            "transport": c.session.transport, "since": c.session.since,
            "running": c.session.running, "waiting_for_person": c.session.waiting,
        } for c in list(self._connections)]

    # -- one connection -----------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        out = LineWriter(writer)
        sock = writer.get_extra_info("socket")
        if sock is None or not same_user(sock):
            log.warning("refused a gateway connection from another user")
            out.close()
            return
        connection: _Connection | None = None
        try:
            connection = await self._greet(reader, out)
            if connection is None:
                return
            self._connections.add(connection)
            if connection.pipes is not None:
                await self._serve_handed(reader, connection, connection.pipes)
            else:
                await self._read_requests(reader, connection)
        except (ProtocolError, ConnectionError, TimeoutError) as exc:
            log.info("gateway connection ended: %s", exc)
            if isinstance(exc, ProtocolError):
                await _try_send(out, protocol.error(f"protocol error: {exc}"))
        finally:
            if connection is not None:
                self._connections.discard(connection)
                await _withdraw(connection)
            out.close()

    async def _greet(self, reader: asyncio.StreamReader, out: LineWriter) -> _Connection | None:
        async with asyncio.timeout(HELLO_DEADLINE_SECONDS):
            hello = await read_message(reader)
        if hello is None:
            return None
        if hello.get("type") == "status":  # `echo-desk gateway status`: no session, one answer
            await out.send({"type": "status", "id": hello.get("id"), "app": f"echo-desk {__version__}",
                            "clients": self.clients()})
            return None
        if hello.get("type") != "hello" or hello.get("version") != protocol.PROTOCOL_VERSION:
            await out.send(protocol.error(
                f"this Echo Desk speaks gateway protocol {protocol.PROTOCOL_VERSION}, not "
                f"{hello.get('version')!r}: use the echo-desk of the same installation as the app"))
            return None
        try:
            client = client_key(str(hello.get("client", "")))
        except BadClientName as exc:
            await out.send(protocol.error(str(exc)))
            return None
        turns = self._approval_turns.get(client)
        if turns is None:
            turns = self._approval_turns[client] = ApprovalTurns(APPROVALS_AT_ONCE, PENDING_PER_CLIENT, self._waiting)
        session = ClientSession(self.engine, self.person, client, workspace_of(hello.get("workspace")),
                                transport=str(hello.get("transport", "stdio"))[:16], keepalive=self.keepalive,
                                approval_turns=turns)
        welcome = {"type": "welcome", "version": protocol.PROTOCOL_VERSION, "app": f"echo-desk {__version__}"}
        connection = _Connection(session, out)
        if hello.get("handoff") is True and session.transport == "stdio":
            pipes = await receive_pipes(out.writer, welcome)
            if pipes is None:
                return None  # refused, and said so: the gateway relays on a connection of its own
            try:
                await out.send({"type": "taken"})
            except BaseException:
                for fd in pipes:
                    os.close(fd)
                raise
            connection.pipes, connection.write_deadline = pipes, asked_deadline(hello)
            if hello.get("take_back") is True:
                connection.quitting = asyncio.Event()
            return connection
        await out.send(welcome)
        return connection

    async def _serve_handed(self, reader: asyncio.StreamReader, connection: _Connection,
                            pipes: tuple[int, int]) -> None:
        def listed(tools: list[dict[str, Any]]) -> None:
            self._listed(connection, tools)

        session = McpSession(InAppBackend(connection.session, listed, lambda: self._quitting))
        connection.tools_changed = session.tools_changed
        connection.serving = asyncio.current_task()
        try:
            ending = await serve_handed(pipes, session, reader, connection.write_deadline, connection.out,
                                        connection.quitting)
        except asyncio.CancelledError:
            # The quit ended the serving while the session was being handed back (a loaded
            # machine): its pipes are closed, and the Activity tab must say so all the same.
            if connection.quitting is not None and connection.quitting.is_set():
                cut = NotHandedBack(HandBackFailure.TOO_SLOW, seconds=HAND_BACK_CUTOFF_SECONDS)
                self._note_ending(connection, Ending.not_handed(cut))
            raise
        self._note_ending(connection, ending)

    def _note_ending(self, connection: _Connection, ending: Ending) -> None:
        failed = ending.not_handed_back
        log.log(logging.WARNING if failed else logging.INFO, "the handed session of %s %s", connection.session.client,
                ending.said)
        audit = self.engine.dispatcher.audit
        # The person sees in the Activity tab that it went on without the app, or why it did not.
        if audit is not None and ending.handed_back:
            audit.append(session_handed_back(connection.session.client, time.time()))
        elif audit is not None and failed is not None:
            audit.append(session_not_handed_back(connection.session.client, time.time(), failed.failure, str(failed)))

    async def _read_requests(self, reader: asyncio.StreamReader, connection: _Connection) -> None:
        while (message := await read_message(reader)) is not None:
            kind, request_id = message["type"], message.get("id")
            if kind == "call":
                if request_id in connection.calls:
                    await connection.out.send(protocol.error("a call with this id is still running", request_id))
                    continue
                connection.track(request_id, asyncio.ensure_future(self._call(connection, message)))
            elif kind == "cancel":
                running = connection.calls.get(request_id)
                if running is not None:
                    running.cancel()
            elif kind == "list":
                tools = connection.session.tools()
                self._listed(connection, tools)
                await connection.out.send({"type": "tools", "id": request_id, "tools": tools})
            elif kind == "status":
                await connection.out.send({"type": "status", "id": request_id, "app": f"echo-desk {__version__}",
                                           "clients": self.clients()})
            else:
                await connection.out.send(protocol.error(f"unknown message type {kind!r}", request_id))

    async def _call(self, connection: _Connection, message: Message) -> None:
        request_id, name, arguments = message.get("id"), message.get("name"), message.get("arguments")
        out = connection.out
        if not isinstance(name, str) or not isinstance(arguments, dict | None):
            await _try_send(out, protocol.error("a call needs a tool name and an object of arguments", request_id))
            return

        async def progress(text: str) -> None:
            await out.send({"type": "progress", "id": request_id, "message": text})

        if self._quitting:
            await _try_send(out, {"type": "result", "id": request_id,
                                  "result": error_result(QUIT_BEFORE_IT_RAN.format(tool=name))})
            return
        try:
            result = await connection.session.call(name, arguments or {}, progress)
        except asyncio.CancelledError:
            if not self._quitting:
                return  # withdrawn by the client: it expects no answer
            # Withdrawn by the quit: said so once its record (cancelled) is in the audit.
            await self.engine.dispatcher.recorded(f"{name} (for {connection.session.client}, withdrawn on quit)")
            result = error_result(QUIT_WHILE_RUNNING.format(tool=name))
        await _try_send(out, {"type": "result", "id": request_id, "result": result})

    # -- telling clients their tools changed --------------------------------------------------
    def _listed(self, connection: _Connection, tools: list[dict[str, Any]]) -> None:
        """The client was given ``tools``: what it is told changed is measured from them. A list
        given while MCP servers were still starting lacks their tools: recorded, as the gateway's
        own engine does; the client is told when they have started."""
        connection.tools_signature = _signature(tools)
        connection.left_out.listed(self._still_starting(), self.engine.dispatcher.audit)

    def _still_starting(self) -> list[str]:
        mcp = getattr(self.engine, "mcp", None)
        if mcp is None:
            return []
        # ``ServerState`` is a string enum of the MCP package, which the gateway does not import.
        return sorted(status.name for status in mcp.statuses() if status.state == "starting")

    def _watch_tools(self) -> None:
        loop = self._loop
        assert loop is not None

        def changed(*_args: object) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._tools_may_have_changed)

        def settings_changed(*_args: object) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._tools_may_have_changed)
                loop.call_soon_threadsafe(self._follow_http_setting)

        mcp = getattr(self.engine, "mcp", None)
        if mcp is not None:
            self._unsubscribe.append(mcp.subscribe(changed))
        self._unsubscribe.append(self.engine.settings.subscribe(settings_changed))

    def _tools_may_have_changed(self) -> None:
        for connection in list(self._connections):
            if not connection.tools_signature:
                continue  # it has not listed yet: nothing to correct
            signature = _signature(connection.session.tools())
            if signature != connection.tools_signature:
                connection.tools_signature = signature
                if connection.tools_changed is not None:
                    connection.tools_changed()
                else:
                    connection.notice({"type": "tools_changed"})


def _signature(tools: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(tools, sort_keys=True, default=str).encode("utf-8")).hexdigest()


async def _try_send(out: LineWriter, message: Message) -> None:
    try:
        await out.send(message)
    except ConnectionError:
        pass  # the client is gone; its calls are withdrawn by the reader


async def _withdraw(connection: _Connection) -> None:
    """The client went away: every call of its still running is cancelled (an open approval
    dialog says it was withdrawn; the audit records the call as cancelled)."""
    tasks = list(connection.calls.values())
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=10)
