"""One live connection to one MCP server, owned by the manager's event loop.

The SDK's ``Client`` is entered and left in one runner task (anyio requires it); calls come
from other tasks of the same loop. For stdio servers the child's stderr goes to a pipe we
read: its last lines explain a failure, and its end tells us the child is gone.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import functools
import logging
import os
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.session import ElicitationFnT, IncomingMessage
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from echo_desk import __version__
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, deferred
from echo_desk.mcp import line_cap
from echo_desk.mcp.body_cap import MAX_EVENT_BYTES, capped_http_client
from echo_desk.mcp.call_lane import CallLane
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.contained import Contained, contained, network_for
from echo_desk.mcp.explain import explained
from echo_desk.mcp.leash import leashed, reaped
from echo_desk.mcp.oauth.bearer import OAuthBearer
from echo_desk.mcp.oauth.errors import SignInNeeded
from echo_desk.mcp.own_folder import server_folder
from echo_desk.mcp.sanitize import MAX_TOOLS_PER_SERVER
from echo_desk.mcp.server_process import ServerProcess
from echo_desk.mcp.stdio_transport import stdio_with_lane
from echo_desk.tools.planted_told import named_and_counted

if TYPE_CHECKING:
    from echo_desk.mcp.owed_server_checks import OwedServerChecks
    from echo_desk.store.settings import SandboxSettings
    from echo_desk.tools.planted import Planted

log = logging.getLogger(__name__)

STDERR_LINES = 40
CONNECT_TIMEOUT = 30.0
MAX_LIST_PAGES = 20


def _why_unreadable(exc: Exception) -> str:
    """The first reason the SDK gave for a message it could not read, short and without the
    message itself (which can be megabytes, or text meant to mislead)."""
    if isinstance(exc, ValidationError) and exc.errors():
        reason = str(exc.errors()[0].get("msg", ""))
    else:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return reason[:200]


class Ending(enum.Enum):
    """How a connection ended under a request, as far as Echo Desk can tell."""

    #: Echo Desk closed it: the person's Stop, or the app quitting.
    STOPPED = "stopped"
    #: Echo Desk closed it to start it again: the person's Restart, or new sandbox paths.
    RESTARTED = "restarted"
    #: An HTTP server: no connection to its address could be made (nothing listens there now).
    UNREACHABLE = "unreachable"
    #: An HTTP server closed the connection (or its event stream) under us.
    CLOSED = "closed"
    #: Anything else: the session ended and the transport said nothing more.
    LOST = "lost"


def ending_of(error: BaseException | None) -> Ending:
    """The ``Ending`` an HTTP transport's error says (``LOST`` for ``None`` or any other error)."""
    if isinstance(error, BaseExceptionGroup):
        endings = {ending_of(e) for e in error.exceptions}
        return next((e for e in (Ending.UNREACHABLE, Ending.CLOSED) if e in endings), Ending.LOST)
    if isinstance(error, httpx2.ConnectError):
        return Ending.UNREACHABLE
    if isinstance(error, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError | httpx2.CloseError):
        return Ending.CLOSED
    return Ending.LOST


def address_of(url: str) -> str:
    """An HTTP server's address for the person: scheme, host and port (no path, query or
    userinfo, which can carry a key), hidden characters visible."""
    try:
        parsed = httpx2.URL(url)
    except (httpx2.InvalidURL, TypeError):
        return visible(url[:80], one_line=True)
    return visible(f"{parsed.scheme}://{parsed.netloc.decode('ascii', 'replace')}", one_line=True)


def gone_detail(ending: Ending, url: str) -> str:
    """A server's status detail for an ``Ending`` (person-facing, ``deferred``)."""
    if ending is Ending.UNREACHABLE:
        return deferred(N_("the server could not be reached at {address}"), address=address_of(url))
    if ending is Ending.CLOSED:
        return deferred(N_("the server closed the connection"))
    return deferred(N_("the connection to the server was lost"))


class HandshakeTimeout(TimeoutError):
    """The server did not finish the MCP handshake (``initialize``) in time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the server did not answer the MCP handshake within {seconds:g} s")
        self.seconds = seconds


class _StderrTail(asyncio.Protocol):
    """Keeps the last lines a child wrote to stderr; calls ``on_eof`` when the pipe closes.
    The lines are for the person to read: each is kept with its hidden characters visible."""

    def __init__(self, on_eof: Callable[[], None]) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._partial = ""
        self._on_eof = on_eof
        self.eof = asyncio.Event()

    def data_received(self, data: bytes) -> None:
        text = self._partial + data.decode("utf-8", errors="replace")
        *complete, self._partial = text.split("\n")
        self.lines.extend(visible(line.rstrip("\r")[:500], one_line=True) for line in complete)
        self._partial = self._partial[-2000:]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._partial:
            self.lines.append(visible(self._partial[:500], one_line=True))
            self._partial = ""
        self.eof.set()
        self._on_eof()


class ServerConnection:
    """Connect, list, call and close one server. Every method runs on the manager's loop."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        elicitation: ElicitationFnT,
        on_tools_changed: Callable[[], Awaitable[None]],
        on_lost: Callable[[str], None],
        extra_env: dict[str, str] | None = None,
        sandbox_settings: Callable[[], SandboxSettings] | None = None,
        owed: OwedServerChecks | None = None,
    ) -> None:
        self.config = config
        self._elicitation = elicitation
        self._on_tools_changed = on_tools_changed
        self._on_lost = on_lost
        self._extra_env = extra_env or {}
        self._sandbox_settings = sandbox_settings
        #: A sandboxed server's launch, for the check of what it left in its folder.
        self._contained: Contained | None = None
        #: Where that check is kept as owed until the check after its end ran (``owed_server_checks``).
        self._owed = owed
        self._owed_id: int | None = None
        #: What the check once its process ended put aside, not yet taken to be told (``take_left``).
        self._left: list[Planted] = []
        #: Set once the check after the process's end has run (or there was nothing to check).
        self._end_checked = asyncio.Event()
        #: The person's sandbox settings a sandboxed server was started with (else ``None``).
        self.started_with: SandboxSettings | None = None
        self._process: ServerProcess | None = None
        self._stderr: _StderrTail | None = None
        self._stderr_transport: asyncio.ReadTransport | None = None
        self._client: Client | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._closing = False
        #: Ended to be started again (``close``/``end_now`` with ``restarting``): a call it ended says so.
        self._restarting = False
        self._lost_reason = ""
        self._background: set[asyncio.Task[Any]] = set()
        #: Resource URI -> who to tell when the server says it changed (``resources/updated``).
        self.resource_listeners: dict[str, list[Callable[[str], None]]] = {}
        self._listens: dict[str, asyncio.Task[None]] = {}
        #: The OAuth access token on HTTP requests (none for stdio, or with an Authorization header set by hand).
        self.bearer: OAuthBearer | None = None
        #: ``tools/call`` past the SDK's session (stdio servers; see ``call_lane``).
        self._lane: CallLane | None = None
        #: Messages of the server's that could not be read (the SDK drops them), and why the last.
        self.unreadable = 0
        self.unreadable_reason = ""
        #: Why Echo Desk ended the connection itself (a person-facing text), when it did.
        self.failure = ""
        #: What the HTTP transport last failed with (the session's end, or an error it passed on).
        self._transport_error: BaseException | None = None
        self._ready: asyncio.Future[None] | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def client(self) -> Client:
        if self._client is None:
            raise ConnectionError(f"MCP server {self.config.name!r} is not connected")
        return self._client

    @property
    def connected(self) -> bool:
        return self._client is not None and not self._closing

    @property
    def stderr_tail(self) -> tuple[str, ...]:
        return tuple(self._stderr.lines) if self._stderr else ()

    @property
    def sign_in_needed(self) -> SignInNeeded | None:
        """Why the person must sign in (again), when a request found the server asking."""
        return self.bearer.needed if self.bearer is not None else None

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version if self._client else ""

    @property
    def server_info(self) -> str:
        """The server's name and version, as it says them, for the person (hidden characters visible)."""
        info = self._client.server_info if self._client else None
        return visible(f"{info.name} {info.version}", one_line=True) if info else ""

    @property
    def server_icons(self) -> list[types.Icon] | None:
        info = self._client.server_info if self._client else None
        return info.icons if info is not None else None

    async def start(self, timeout: float = CONNECT_TIMEOUT) -> None:
        """Spawn/connect and finish the handshake within ``timeout`` seconds; raises with a
        clear message on failure (``HandshakeTimeout`` when the server never answered)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # Once start() has given up, the runner may still fail it: that failure is already
        # reported (here, as a timeout), not "never retrieved" with a traceback on stderr.
        ready.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._ready = ready
        self._runner = asyncio.create_task(self._run(ready), name=f"mcp:{self.config.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError:
            await self.close()
            raise HandshakeTimeout(timeout) from None
        except BaseException:
            await self.close()
            raise

    async def _transport(self, stack: AsyncExitStack) -> Any:
        cfg = self.config
        if cfg.is_stdio:
            if not line_cap.install():
                raise ConnectionError(deferred(N_("this MCP SDK reads a server's output in a way Echo Desk cannot "
                                                  "bound; local (stdio) servers are not started")))
            read_fd, write_fd = os.pipe()
            errlog = os.fdopen(write_fd, "w")
            # Our copy of the write end closes right after the spawn: EOF then means the child
            # (and anything it spawned holding stderr) is gone.
            stack.callback(errlog.close)
            loop = asyncio.get_running_loop()
            # Not on the stack: close() reads the pipe to its end first, so the last lines of
            # a server that failed are in the status.
            self._stderr_transport, self._stderr = await loop.connect_read_pipe(
                lambda: _StderrTail(self._stderr_closed), os.fdopen(read_fd, "rb")
            )
            env = {**self._extra_env, **cfg.resolved_env()}
            command, args = cfg.command, list(cfg.args)
            if cfg.sandbox:
                network = network_for(cfg)
                if network is not None:
                    stack.push_async_callback(network.close)
                self.started_with = self._sandbox_settings() if self._sandbox_settings else None
                if self._owed is not None and cfg.cwd:
                    await asyncio.to_thread(self._owed.before_snapshot, cfg.name)  # before its snapshot is taken
                started = contained(cfg, env, network.path if network is not None else None, self.started_with)
                command, args, env = started.command, started.args, started.env
                self._contained = started if started.checked else None
                if self._contained is not None and self._owed is not None:
                    # Before it starts: a kill of Echo Desk from now on leaves its check to the next start.
                    self._owed_id = await asyncio.to_thread(self._owed.owe, cfg.name, started.launch)
            # Dies with us, even after kill -9, and so does everything it started (own sessions too).
            command, args = reaped(*leashed(command, args, env), env)
            # Never the folder Echo Desk happens to run in (a workspace, started from a terminal
            # there): ``npx`` would start that folder's ``node_modules`` copy of the server.
            params = StdioServerParameters(command=command, args=args, env=env, cwd=cfg.cwd or server_folder(cfg.name, sandboxed=cfg.sandbox))
            return stdio_with_lane(params, errlog, self._keep_lane), errlog
        headers = cfg.resolved_headers()
        if not any(key.lower() == "authorization" for key in headers):
            self.bearer = OAuthBearer(cfg.name)
        # No answer is read past the cap (``body_cap``), as no line of a stdio server.
        refusals = (self._answer_too_long, self._answer_compressed, self._event_too_long)
        if cfg.transport == "sse":
            factory = functools.partial(capped_http_client, *refusals, stream_ended=self._standing_stream_ended)
            return sse_client(cfg.url, headers=headers, auth=self.bearer, httpx_client_factory=factory), None
        http = await stack.enter_async_context(capped_http_client(*refusals, headers=headers, auth=self.bearer,
                                                                  stream_ended=self._standing_stream_ended))
        return streamable_http_client(cfg.url, http_client=http, max_sse_event_size=MAX_EVENT_BYTES), None

    def _keep_lane(self, lane: CallLane) -> None:
        self._lane = lane
        self._process = lane.process

    @property
    def restarting(self) -> bool:
        """Ended (or being ended) by Echo Desk to be started again."""
        return self._restarting

    def end_now(self, *, restarting: bool = False) -> bool:
        """On any thread: end the server's process (and all it started) and wait until it is gone,
        so that it reads nothing more with the disk it was started with. ``False`` when this
        transport did not spawn it itself, or it did not end in time; the connection then finds
        it lost (the next call starts it again). ``restarting``: it is ended to be started again."""
        self._restarting = self._restarting or restarting
        return self._process is not None and self._process.end_now()

    async def _run(self, ready: asyncio.Future[None]) -> None:
        error: BaseException | None = None
        try:
            async with AsyncExitStack() as stack:
                transport, errlog = await self._transport(stack)
                client = Client(
                    transport,
                    elicitation_callback=self._elicitation,
                    message_handler=self._on_message,
                    client_info=types.Implementation(name="echo-desk", version=__version__),
                    cache=None,
                )
                try:
                    with line_cap.reporting_to(self._line_too_long):
                        await stack.enter_async_context(client)
                finally:
                    if errlog is not None:
                        errlog.close()
                if self._lane is not None and not self._lane.adopt(client):
                    self._lane = None
                async with anyio.create_task_group() as tg:
                    if self._wants_listen(client):
                        tg.start_soon(self._listen, client)
                    self._client = client
                    ready.set_result(None)
                    await self._stop.wait()
                    tg.cancel_scope.cancel()
        except BaseException as exc:  # reported to start() or as a lost connection
            error = exc
            if self._transport_error is None or ending_of(exc) is not Ending.LOST:
                self._transport_error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            self._lane = None
            if not ready.done():
                ready.set_exception(error or ConnectionError("the server closed the connection"))
            elif not self._closing:
                # Before the loss is reported (and so before any start again takes its snapshot of
                # the folder): a server that ended on its own is checked as a stopped one is.
                await self._check_at_end()
                self._on_lost(self._lost_reason or self._why_ended(error))

    def _why_ended(self, error: BaseException | None) -> str:
        if not self.config.is_stdio and ending_of(error) is not Ending.LOST:
            return gone_detail(ending_of(error), self.config.url)
        return explained(error) if error else deferred(N_("the connection ended"))

    async def ending(self, wait: float = 0.5) -> Ending:
        """How the connection ended under a request that got no answer: once the session has
        ended (waited for up to ``wait`` s), from what the transport failed with."""
        runner = self._runner
        streamable = self.config.transport not in ("stdio", "sse")
        # Streamable HTTP: the transport's failure ends the runner just after the request's.
        if runner is not None and not runner.done() and not self._closing and streamable:
            await asyncio.wait({runner}, timeout=wait)
        if self._restarting and not self.failure:
            return Ending.RESTARTED
        if self._closing and not self.failure:
            return Ending.STOPPED
        if self.config.is_stdio:
            return Ending.LOST
        sse = not streamable
        if sse and self._transport_error is None:
            # The older SSE transport ends the session only when its event stream ends, and
            # passes on the error first when one ended it: none, so the server closed it.
            return Ending.CLOSED
        return ending_of(self._transport_error)

    async def close(self, *, restarting: bool = False) -> None:
        """Close the session; for stdio the SDK closes stdin, then terminates the process group.
        ``restarting``: it is closed to be started again (a call it ends says "restarted")."""
        self._restarting = self._restarting or restarting
        self._closing = True
        self._stop.set()
        for task in list(self._background):
            task.cancel()
        if self._runner is not None:
            if self._client is None and not self._runner.done():
                # Still in the handshake (a server that never answers ``initialize``): nothing
                # will see ``_stop``; cancelling unwinds the SDK, which ends the process.
                self._runner.cancel()
            # The SDK bounds its own shutdown (stdin close, SIGTERM, SIGKILL, each ~2 s).
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(self._runner), 15.0)
        self._client = None
        if self._stderr is not None and self._stderr_transport is not None:
            # The process is gone (or abandoned by the SDK); a grandchild may still hold the
            # pipe, so the wait for its end is bounded.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stderr.eof.wait(), 1.0)
            self._stderr_transport.close()
        await self._check_at_end()

    async def _check_at_end(self) -> None:
        """Its process is gone: what it left in the person's folder is put aside, kept to be told."""
        planted = await self.planted()
        if planted:
            log.warning("MCP server %s left files that could make a program run code later; put aside: %s",
                        self.config.name, named_and_counted(planted, lambda p: f"{p.path} ({p.change.value})"))
            self._left.extend(planted)
        owed_id, self._owed_id = self._owed_id, None
        if self._owed is not None and owed_id is not None:
            await asyncio.to_thread(self._owed.settle, owed_id)
        self._end_checked.set()

    async def end_checked(self, wait: float = 20.0) -> None:
        """Wait until the check after its process's end has run (the runner's, or ``close``'s):
        a start again must not take its snapshot of the folder first, or what was planted just
        before the end would be in it, and stay."""
        if self._runner is None:
            return  # never started: nothing ran
        try:
            await asyncio.wait_for(self._end_checked.wait(), wait)
        except TimeoutError:
            log.warning("MCP server %s: the check of its folder after its end did not finish in %g s",
                        self.config.name, wait)

    def take_left(self) -> tuple[Planted, ...]:
        """What the check after its end put aside, once (for the next call's result to say)."""
        left, self._left = tuple(self._left), []
        return left

    def _standing_stream_ended(self, error: httpx2.TransportError | None) -> None:
        """The server ended its standing event stream (``standing_stream``) while connected."""
        if self._closing or self.failure or self._client is None:
            return  # Echo Desk is closing it, has said why it ended, or is still in the handshake
        log.debug("MCP server %s: its event stream ended (%s)", self.config.name, error)
        if self.config.transport == "sse":
            # The older SSE transport gets every answer on this stream and never opens it again:
            # the connection is over, and the server's row says so now, not at the next call.
            if error is not None:
                self._transport_error = error
            self._lost_reason = self._lost_reason or gone_detail(Ending.CLOSED, self.config.url)
            self._stop.set()
            return
        # Streamable HTTP: a server may end this stream and still be there (the SDK opens it
        # again). One ping tells: a server gone fails its POST, which ends the session as a failed
        # call does (``_on_lost``, "could not be reached"); a server still there answers it.
        self._spawn(self._still_there())

    async def _still_there(self) -> None:
        client = self._client
        if client is None:
            return
        # Its answer or its error says nothing more: a failed POST has ended the session itself.
        # A 2026-07-28 server no longer knows ``ping``: its error is an answer all the same.
        with contextlib.suppress(Exception), _older_protocol():
            async with asyncio.timeout(self.config.timeout):
                await client.send_ping()

    def _stderr_closed(self) -> None:
        if not self._closing and self._client is not None:
            self._lost_reason = self._lost_reason or N_("the server process exited")
            self._stop.set()

    def _line_too_long(self) -> None:
        """The server wrote a line past ``line_cap.MAX_LINE_BYTES``: the rest is not read, and the
        connection ends with why (the handshake fails with it, or the server is lost with it)."""
        self._end_unread(N_("the server sent a message longer than {size} MB, the most Echo Desk reads: the rest "
                          "was not read, and Echo Desk stopped it"),
                       f"wrote a line longer than {line_cap.MAX_LINE_BYTES} bytes")

    def _answer_too_long(self) -> None:
        """An HTTP server's answer passed the cap (``body_cap``): the rest is not read, and Echo
        Desk disconnects from the server (it runs elsewhere: nothing is stopped)."""
        self._end_unread(N_("the server sent a message longer than {size} MB, the most Echo Desk reads: the rest "
                          "was not read, and Echo Desk disconnected from it"),
                       f"sent an answer longer than {line_cap.MAX_LINE_BYTES} bytes")

    def _answer_compressed(self) -> None:
        """An HTTP server compressed an answer, though asked not to (``body_cap``): it is not
        inflated (it could be any size), and Echo Desk disconnects from the server."""
        self._end_unread(N_("the server sent a compressed message, which Echo Desk does not inflate (it could be "
                          "far larger than {size} MB): it was not read, and Echo Desk disconnected from it"),
                       "sent a compressed answer")

    def _event_too_long(self) -> None:
        """An event of an HTTP server's event stream passed the SDK's limit (``body_cap``): the
        rest is not read, and Echo Desk disconnects from the server (the next call connects again)."""
        self._end_unread(N_("the server sent an event longer than {size} MB, the most Echo Desk reads in one "
                          "event: the rest was not read, and Echo Desk disconnected from it"),
                       f"sent an event longer than {MAX_EVENT_BYTES} bytes", size=MAX_EVENT_BYTES // (1024 * 1024))

    def _end_unread(self, why: str, logged: str, size: int = line_cap.MAX_LINE_BYTES // (1024 * 1024)) -> None:
        if self.failure:
            return  # told once: the first message refused ended the connection
        self.failure = self._lost_reason = deferred(why, size=size)
        log.warning("MCP server %s %s; the rest is not read, and it is disconnected", self.config.name, logged)
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(ConnectionError(self.failure))
        self._stop.set()

    # -- notifications -------------------------------------------------------------------------

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._spawn(self._on_tools_changed())
        elif isinstance(message, types.ResourceUpdatedNotification):
            self._resource_updated(str(message.params.uri))
        elif isinstance(message, httpx2.TransportError):
            # The connection failing (the older SSE transport passes it on before it ends the
            # session): how it ended, not a message of the server's that could not be read.
            log.debug("MCP server %s: transport error %s", self.config.name, message)
            self._transport_error = message
        elif isinstance(message, Exception):
            log.debug("MCP server %s: transport error %s", self.config.name, message)
            self.unreadable += 1
            self.unreadable_reason = _why_unreadable(message)

    def unreadable_since(self, count: int) -> str:
        """What to add to "did not answer" when messages that could not be read came after
        ``count`` of them (``unreadable`` before the request): the answer may have been one."""
        more = self.unreadable - count
        if more <= 0:
            return ""
        messages = "1 message" if more == 1 else f"{more} messages"
        return f"; it sent {messages} Echo Desk could not read ({self.unreadable_reason})"

    def _wants_listen(self, client: Client) -> bool:
        tools = client.server_capabilities.tools
        return client.protocol_version in MODERN_PROTOCOL_VERSIONS and bool(tools and tools.list_changed)

    async def _listen(self, client: Client) -> None:
        # 2026-07-28 servers only send list changes to a subscription the client opens.
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._spawn(self._on_tools_changed())
        except Exception as exc:  # noqa: BLE001 — the subscription ends with whatever the server's transport raised; nothing to do but note it
            log.debug("MCP server %s: listen ended: %s", self.config.name, exc)

    # -- requests ------------------------------------------------------------------------------

    async def list_tools(self) -> list[types.Tool]:
        """The server's tools, page by page; once they are more than a server may offer
        (``MAX_TOOLS_PER_SERVER``, which refuses them all), no further page is asked for or kept."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await self.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor or len(tools) > MAX_TOOLS_PER_SERVER:
                return tools
        raise ValueError(deferred(N_("the server's tool list goes on for more than {pages} pages"), pages=MAX_LIST_PAGES))

    async def planted(self) -> tuple[Planted, ...]:
        """For a sandboxed server working in a folder the person chose: what it left there since
        it started that could make a program run code later, put aside (``Contained.planted``);
        ``()`` for any other server."""
        contained_server = self._contained
        if contained_server is None:
            return ()
        try:
            return await asyncio.to_thread(contained_server.planted)
        except Exception:  # a failed check must not fail the call that was made; it is logged
            log.exception("MCP server %s: the check of its folder failed", self.config.name)
            return ()

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        lane = self._lane
        if lane is not None and lane.ready:
            return await lane.call_tool(name, arguments)
        return await self.client.call_tool(name, arguments)

    @property
    def calls_past_the_session(self) -> bool:
        """Whether ``call_tool`` takes the lane (a stdio server, an SDK the lane knows)."""
        return self._lane is not None and self._lane.ready

    # -- resources and prompts -----------------------------------------------------------------

    async def _pages(self, fetch: Callable[[str | None], Awaitable[Any]], field: str, limit: int) -> list[Any]:
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            page = await fetch(cursor)
            items.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor or len(items) >= limit:
                return items[:limit]
        return items[:limit]

    def _has(self, capability: str) -> bool:
        caps = self.client.server_capabilities
        return getattr(caps, capability, None) is not None

    async def list_resources(self, limit: int) -> list[types.Resource]:
        if not self._has("resources"):
            return []
        return await self._pages(lambda c: self.client.list_resources(cursor=c), "resources", limit)

    async def list_resource_templates(self, limit: int) -> list[types.ResourceTemplate]:
        if not self._has("resources"):
            return []
        return await self._pages(lambda c: self.client.list_resource_templates(cursor=c), "resource_templates", limit)

    @property
    def resources_subscribable(self) -> bool:
        caps = self.client.server_capabilities.resources
        return bool(caps is not None and caps.subscribe)

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        return await self.client.read_resource(uri)

    async def list_prompts(self, limit: int) -> list[types.Prompt]:
        if not self._has("prompts"):
            return []
        return await self._pages(lambda c: self.client.list_prompts(cursor=c), "prompts", limit)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> types.GetPromptResult:
        return await self.client.get_prompt(name, arguments)

    async def subscribe(self, uri: str, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(uri)`` when the server says ``uri`` changed; returns an unsubscribe."""
        first = uri not in self.resource_listeners
        self.resource_listeners.setdefault(uri, []).append(listener)
        if first:
            if self.client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                task = asyncio.ensure_future(self._listen_resource(uri))
                self._listens[uri] = task
                self._background.add(task)
                task.add_done_callback(self._background.discard)
            else:
                with _older_protocol():
                    await self.client.session.subscribe_resource(uri)

        def unsubscribe() -> None:
            listeners = self.resource_listeners.get(uri, [])
            if listener in listeners:
                listeners.remove(listener)
            if not listeners and self.resource_listeners.pop(uri, None) is not None:
                task = self._listens.pop(uri, None)
                if task is not None:
                    task.cancel()
                elif self.connected:
                    self._spawn(self._unsubscribe_quietly(uri))

        return unsubscribe

    async def _unsubscribe_quietly(self, uri: str) -> None:
        with contextlib.suppress(Exception), _older_protocol():
            await self.client.session.unsubscribe_resource(uri)

    async def _listen_resource(self, uri: str) -> None:
        # 2026-07-28: updates come on a listen stream opened for the URI.
        try:
            async with self.client.listen(resource_subscriptions=[uri]) as subscription:
                async for _event in subscription:
                    self._resource_updated(uri)
        except Exception as exc:  # noqa: BLE001 — the stream ends with whatever the transport raised
            log.debug("MCP server %s: resource listen ended: %s", self.config.name, exc)

    def _resource_updated(self, uri: str) -> None:
        for listener in list(self.resource_listeners.get(uri, ())):
            try:
                listener(uri)
            except Exception:  # a broken listener must not stop the connection
                log.exception("resource listener failed")


@contextlib.contextmanager
def _older_protocol() -> Iterator[None]:
    """``resources/subscribe`` is deprecated only for 2026-07-28 servers, which we ``listen`` to
    instead; for the older servers that still need it, the SDK's warning is noise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield

