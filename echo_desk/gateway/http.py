"""Streamable HTTP on 127.0.0.1, for clients that take a URL (``http://127.0.0.1:PORT/mcp``).

Off by default. Every request is checked before MCP sees it:
  * ``Host`` must be ``127.0.0.1:PORT`` or ``localhost:PORT``, and an ``Origin``, when a browser
    sends one, ``http://127.0.0.1:PORT`` or ``http://localhost:PORT``: a page on another site
    that rebinds its name to 127.0.0.1 is refused (403);
  * ``Authorization: Bearer <token>`` must be one client's token (``tokens``): missing or wrong →
    401. The token decides which client this is; each client then gets the same backend as on
    stdio (the running app through the socket), its own profile, rules and name in the audit;
  * an MCP session (``Mcp-Session-Id``) belongs to the client whose token opened it: another
    token naming it, or any token naming one not opened here, is answered as for a session that
    does not exist (404). Each client's sessions are remembered within a bound of its own.

Each MCP session has a backend of its own, so a session of the app's (what "Allow for this
session of Cursor" lasts for) is one MCP session: a new one (the client restarted) is asked again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from echo_desk.common.file_cache import ReadWhenChanged
from echo_desk.common.json_text import read_json
from echo_desk.gateway.handshake import ID_IN_USE, INVALID_REQUEST, is_request_id, request_key
from echo_desk.gateway.server import ListWatchers, mcp_server
from echo_desk.gateway.tokens import client_for
from echo_desk.gateway.tools_backend import Backend

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: The largest request body accepted (as on stdio).
MAX_BODY_BYTES = 8 * 1024 * 1024
#: A client's MCP sessions with a backend (a connection to the app) at once; past it, the
#: oldest one's is closed (a later call of that session gets a new one, and asks again).
MAX_SESSIONS_PER_CLIENT = 16
#: A client's MCP sessions that are remembered; past it, that client's oldest is forgotten and
#: ended (a request naming it is answered as for a session that does not exist: the client opens
#: a new one). Per client: one client opening session after session never pushes out another's.
MAX_OWNED_SESSIONS = 256
#: MCP sessions open at once, of all clients (MCP refuses a new one past it, 503); each client's
#: own bound above keeps them well under it.
MAX_OPEN_SESSIONS = 10_000
#: TCP connections open at once, of anyone: one past it is closed as it comes. Each holds a file
#: descriptor of the app's, and a connection is open before any token is checked.
MAX_CONNECTIONS = 128
#: How long a connection may take to send a request's headers, from its opening or from the end
#: of its previous answer; one still without them then is closed. uvicorn waits for them for
#: ever: any local program (any user's, with no token) held one file descriptor of the app's
#: per connection it opened and left silent, until the app could open no file at all.
HEADERS_DEADLINE_SECONDS = 10.0


def bearer(headers: dict[str, str]) -> str:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


async def _refuse(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": text}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


SESSION_HEADER = "mcp-session-id"


async def _body_and_replay(receive: Receive, cap: int) -> tuple[bytes | None, Receive]:
    """A request's body (``None`` past ``cap`` bytes: MCP refuses it), and a ``receive`` that
    gives MCP what was read here first, then the rest."""
    read: list[Any] = []
    size = 0
    whole: bytes | None = b""
    while True:
        message = await receive()
        read.append(message)
        if message.get("type") != "http.request":
            whole = None
            break
        size += len(message.get("body", b""))
        if size > cap:
            whole = None
            break
        if not message.get("more_body", False):
            whole = b"".join(m.get("body", b"") for m in read)
            break

    async def replay() -> Any:
        return read.pop(0) if read else await receive()

    return whole, replay


def _request_id_of(body: bytes) -> Any:
    """The id of a JSON-RPC request (``None`` for a notification, an answer, or what is not one)."""
    try:
        message = read_json(body)
    except ValueError:
        return None
    if isinstance(message, dict) and isinstance(message.get("method"), str) and is_request_id(message.get("id")):
        return message["id"]
    return None


async def _answer_error(send: Send, request_id: Any, text: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_REQUEST, "message": text}}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """Host and Origin first (403), then the bearer token (401), then the session's owner (404),
    then MCP."""

    def __init__(self, app: ASGIApp, port: int, clients: Callable[[], Iterable[str]],
                 ended: Callable[[str], None] = lambda _session: None) -> None:
        self.app = app
        self.port = port
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}
        self.clients = clients
        #: Told of a session its client ended (a DELETE that MCP answered with success).
        self.ended = ended
        #: Each MCP session's client (the one whose token opened it).
        self.owners: dict[str, str] = {}
        #: Each client's sessions, oldest first.
        self._sessions_of: dict[str, dict[str, None]] = {}
        self._ending: set[asyncio.Task[None]] = set()
        #: Requests under way, by session and ``request_key`` of their id (what a cancel names).
        self._under_way: set[tuple[str, Any]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            # A WebSocket (the server is told to take none) or a kind ASGI adds later: none passes
            # the checks below, so none reaches MCP.
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        headers = _headers(scope)
        if headers.get("host", "").lower() not in self.hosts:
            await _refuse(send, 403, "this gateway answers only as 127.0.0.1 or localhost (Host refused)")
            return
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            await _refuse(send, 403, "requests from web pages of other origins are refused (Origin)")
            return
        client = client_for(bearer(headers), self.clients())
        if client is None:
            await _refuse(send, 401, "a client's bearer token is needed (echo-desk gateway token --client NAME)",
                          [(b"www-authenticate", b'Bearer realm="echo-desk"')])
            return
        sessions = [v for k, v in scope.get("headers", []) if k.decode("latin-1").lower() == SESSION_HEADER]
        if len(sessions) > 1:
            # This check reads one, MCP may read another: only one session per request.
            await _refuse(send, 400, "one Mcp-Session-Id header at most")
            return
        session = headers.get(SESSION_HEADER)
        if session is not None and self.owners.get(session) != client:
            # Another client's session: its calls, its stream and its end are not this token's.
            # One never opened here, or forgotten, is no one's.
            await _refuse(send, 404, "no such session")
            return
        ended = session if scope.get("method") == "DELETE" else None
        key: tuple[str, Any] | None = None
        if session is not None and scope.get("method") == "POST":
            body, receive = await _body_and_replay(receive, MAX_BODY_BYTES)
            request_id = _request_id_of(body) if body is not None else None
            if request_id is not None:
                key = (session, request_key(request_id))
                if key in self._under_way:
                    # Taken, one id would name two requests: MCP kept the last, and a cancel of
                    # the id withdrew it while the first, which no cancel reached then, ran.
                    await _answer_error(send, request_id, ID_IN_USE.format(id=request_id))
                    return
                self._under_way.add(key)
        try:
            await self.app(scope, receive, self._owned_by(client, ended, send))
        finally:
            if key is not None:
                self._under_way.discard(key)

    def _owned_by(self, client: str, ended: str | None, send: Send) -> Send:
        """``send``, noting the session a response opens as ``client``'s, and forgetting the
        one a DELETE ended (``ended``) once MCP says it did."""

        async def noting(message: Any) -> None:
            if message.get("type") == "http.response.start":
                if ended is not None and 200 <= int(message.get("status", 0)) < 300:
                    self._forget(ended)
                else:
                    for key, value in message.get("headers", ()):
                        if key.decode("latin-1").lower() == SESSION_HEADER:
                            self._own(value.decode("latin-1"), client)
            await send(message)

        return noting

    def _own(self, session: str, client: str) -> None:
        if session in self.owners:
            return
        self.owners[session] = client
        mine = self._sessions_of.setdefault(client, {})
        mine[session] = None
        while len(mine) > MAX_OWNED_SESSIONS:  # ended without a DELETE (closed, or idle), or a flood
            oldest = next(iter(mine))
            self._forget(oldest)
            self._end_in_mcp(oldest)

    def _forget(self, session: str) -> None:
        """``session`` is no one's any more (ended, or its client's oldest past the bound)."""
        client = self.owners.pop(session, None)
        if client is not None:
            self._sessions_of.get(client, {}).pop(session, None)
            if not self._sessions_of.get(client):
                self._sessions_of.pop(client, None)
        self.ended(session)

    def _end_in_mcp(self, session: str) -> None:
        """End a forgotten session in MCP too, as its client's DELETE would: left open, it would
        count against MCP's sessions of all clients until it is idle for 30 minutes."""

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(_message: Any) -> None:
            pass

        scope: Scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "DELETE",
            "scheme": "http", "path": MCP_PATH, "raw_path": MCP_PATH.encode(), "root_path": "",
            "query_string": b"", "server": ("127.0.0.1", self.port), "client": ("127.0.0.1", 0),
            "headers": [(b"host", f"127.0.0.1:{self.port}".encode()), (SESSION_HEADER.encode(), session.encode())],
        }

        async def end() -> None:
            try:
                await self.app(scope, receive, discard)
            except Exception:  # a session MCP already let go of: nothing is left to end
                log.debug("forgotten MCP session %s not ended", session[:16], exc_info=True)

        task = asyncio.ensure_future(end())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)


class HttpGateway:
    """The MCP server on HTTP: one backend per client (made on its first request)."""

    def __init__(self, port: int, clients: Callable[[], Iterable[str]], make_backend: Callable[[str], Backend],
                 host: str = "127.0.0.1") -> None:
        self.port = port
        self.host = host
        self.clients = clients
        self.make_backend = make_backend
        #: By client and MCP session (``""``: a request of no session yet), oldest first.
        self.backends: dict[tuple[str, str], Backend] = {}
        self.watchers = ListWatchers()
        self._server: _Server | None = None
        self._notices: set[asyncio.Task[None]] = set()

    async def _backend_for(self, ctx: Any) -> Backend:
        request = ctx.request
        headers = {k.lower(): v for k, v in request.headers.items()} if request is not None else {}
        client = client_for(bearer(headers), self.clients())
        if client is None:  # the guard let it through, then the token was revoked
            raise PermissionError("the bearer token is no longer valid")
        key = (client, headers.get(SESSION_HEADER, ""))
        backend = self.backends.get(key)
        if backend is None:
            backend = self.backends[key] = self.make_backend(client)
            if hasattr(backend, "on_tools_changed"):
                backend.on_tools_changed = self._tools_changed
            mine = [k for k in self.backends if k[0] == client]
            for old in mine[:max(0, len(mine) - MAX_SESSIONS_PER_CLIENT)]:
                self._close(self.backends.pop(old))
        return backend

    def _session_ended(self, session: str) -> None:
        for key in [k for k in self.backends if k[1] == session]:
            self._close(self.backends.pop(key))

    def _close(self, backend: Backend) -> None:
        closing = getattr(backend, "aclose", None)
        if closing is not None:
            task = asyncio.ensure_future(closing())
            self._notices.add(task)
            task.add_done_callback(self._notices.discard)

    def _tools_changed(self) -> None:
        task = asyncio.ensure_future(self.watchers.changed())
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    def app(self) -> ASGIApp:
        server = mcp_server(self._backend_for, self.watchers)
        starlette = server.streamable_http_app(streamable_http_path=MCP_PATH, host=self.host,
                                               max_request_body_size=MAX_BODY_BYTES, max_sessions=MAX_OPEN_SESSIONS)
        return Guard(starlette, self.port, self.clients, self._session_ended)

    async def serve(self, ready: asyncio.Event | None = None) -> None:
        """Serve until ``stop()`` (or cancelled); ``ready`` is set once it listens. ``OSError``
        at once when the port is taken (bound here: uvicorn would exit the process instead)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError:
            sock.close()
            raise
        # ws="none": an Upgrade request is an ordinary request here, checked like any other.
        config = uvicorn.Config(self.app(), log_level="warning", lifespan="on", access_log=False, ws="none",
                                http=_BoundedH11)
        self._server = _Server(config, ready or asyncio.Event())
        try:
            await self._server.serve(sockets=[sock])
        finally:
            sock.close()
            _end_sse_watchers()
            for backend in self.backends.values():
                closing = getattr(backend, "aclose", None)
                if closing is not None:
                    await closing()

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True


def _end_sse_watchers() -> None:
    """sse-starlette (under the SDK's streams) leaves a poller per loop that ends only when the
    whole process exits; this loop outlives the server (the app's), so end it with the server."""
    for task in asyncio.all_tasks():
        if getattr(task.get_coro(), "__qualname__", "") == "_shutdown_watcher" and not task.done():
            task.cancel()


class _BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 connection, within ``MAX_CONNECTIONS`` and ``HEADERS_DEADLINE_SECONDS``
    (the checks of ``Guard`` come only once a request's headers are in)."""

    _headers_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.abort()
            return
        self._wait_for_headers()

    def _wait_for_headers(self) -> None:
        self._stop_waiting()
        self._headers_timer = self.loop.call_later(HEADERS_DEADLINE_SECONDS, self._headers_late)

    def _stop_waiting(self) -> None:
        if self._headers_timer is not None:
            self._headers_timer.cancel()
            self._headers_timer = None

    def _headers_late(self) -> None:
        self._headers_timer = None
        # IDLE: no request's headers since the connection opened (or since the last answer). A
        # request under way (its body coming, or its answer streaming) is left alone.
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it listens."""

    def __init__(self, config: uvicorn.Config, ready: asyncio.Event) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.ready.set()


def settings_clients(path: Path) -> Callable[[], list[str]]:
    """The clients of the settings file at ``path``, read again when it changes (the app may add
    one while this process runs)."""
    read: ReadWhenChanged[list[str]] = ReadWhenChanged(_clients_in, missing=[])
    return lambda: list(read(path))


def _clients_in(path: Path) -> list[str]:
    try:
        raw = read_json(path.read_text(encoding="utf-8"))
        return list((raw.get("gateway") or {}).get("clients") or {})
    except (OSError, ValueError, AttributeError):
        return []
