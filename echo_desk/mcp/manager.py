"""``McpManager``: every MCP server of one app session, on one event loop.

By default that loop runs on a dedicated thread (the app: a server's large answer is decoded
off the UI thread, and the UI's loop never hosts the SDK's tasks); the headless CLI shares its loop
instead, which saves two thread wake-ups per call. Either way a call can come from any loop
(a tool worker's, the UI's, the CLI's): ``call_tool`` hops over and back when it must, and
cancelling the caller cancels the request on the wire. Status changes reach subscribers as
``McpEvent`` callbacks on the manager's loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Collection, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from echo_desk.common.coalesced import Coalesced
from echo_desk.common.file_cache import file_stamp, recently_written
from echo_desk.i18n import N_, Deferred, deferred
from echo_desk.mcp import approvals
from echo_desk.mcp.calls import CallRouter
from echo_desk.mcp.config import (
    ConfigError,
    SavedConfig,
    ServerConfig,
    config_path,
    load_config,
    read_saved_config,
    update_config,
)
from echo_desk.mcp.connection import (
    CONNECT_TIMEOUT,
    Ending,
    ServerConnection,
    ending_of,
    gone_detail,
)
from echo_desk.mcp.contained import persons_paths
from echo_desk.mcp.explain import explained, with_unreadable
from echo_desk.mcp.icons import IconCache, ServerIcons
from echo_desk.mcp.integrity import IntegrityWarning, texts_of, tool_warnings
from echo_desk.mcp.oauth.errors import SignInError
from echo_desk.mcp.oauth.flow import OpenUrl, SignOutResult
from echo_desk.mcp.oauth.flow import sign_in as oauth_sign_in
from echo_desk.mcp.oauth.flow import sign_out as oauth_sign_out
from echo_desk.mcp.oauth.registration import ClientSettings
from echo_desk.mcp.prompts import PromptInfo, PromptText
from echo_desk.mcp.prompts import info_of as prompt_info
from echo_desk.mcp.prompts import text_of as prompt_text
from echo_desk.mcp.registration import RegistryLike, ServerRecord, ToolRegistration, readiness, tool_info
from echo_desk.mcp.resources import (
    MAX_LISTED,
    AttachedResource,
    ResourceError,
    ResourceInfo,
    ResourceListing,
    ResourceProblem,
    attachment_from,
    check_declared_size,
    template_of,
)
from echo_desk.mcp.resources import info_of as resource_info
from echo_desk.mcp.sanitize import server_prefix
from echo_desk.mcp.status import (
    STATE_LABELS,
    ManagerClosed,
    McpEvent,
    ServerStartApprover,
    ServerStartRequest,
    ServerState,
    ServerStatus,
    SignInSummary,
)
from echo_desk.mcp.untold import Untold
from echo_desk.store.paths import cache_dir
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.tools import Tool, ToolExecutionContext, ToolHost, ToolResult

if TYPE_CHECKING:
    from echo_desk.mcp.owed_server_checks import OwedServerChecks
    from echo_desk.tools.planted import Planted

__all__ = ["McpManager", "RegistryLike"]

log = logging.getLogger(__name__)
T = TypeVar("T")


class McpManager:
    """Connects the configured servers and keeps their tools in the registry.

    Use ``async with McpManager(...)`` or call ``aclose()``. Public coroutines may be awaited
    from any event loop; plain methods only read state.
    """

    def __init__(
        self,
        settings_store: SettingsStore,
        *,
        registry: RegistryLike | None = None,
        host: ToolHost | None = None,
        servers: dict[str, ServerConfig] | None = None,
        extra_env: dict[str, str] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        handshake_timeout: float = CONNECT_TIMEOUT,
        owed: OwedServerChecks | None = None,
    ) -> None:
        """``loop``: share this (running) loop instead of starting a thread with its own;
        it must keep running until ``aclose()`` returns. ``handshake_timeout``: how long a
        server may take to start and answer ``initialize`` and the first tool listing.
        ``owed``: where a sandboxed server's check is kept as owed while it runs."""
        self.settings_store = settings_store
        self._owed = owed
        self.registry = registry
        self.host = host
        self.config_error = ""
        #: ``mcp.json`` as this manager last read or wrote it: an edit starts from these servers
        #: while the file is unchanged, from the file when another process changed it.
        self._saved = self._read_config(running={}) if servers is None else SavedConfig(servers, file_stamp(config_path()))
        servers = self._saved.servers
        self._servers = {name: ServerRecord(config=cfg) for name, cfg in servers.items()}
        #: Each server's command line or URL as shown (``server_target``), with the configuration it is of.
        self._targets: dict[str, tuple[ServerConfig, str]] = {}
        for srv in self._servers.values():
            srv.state = ServerState.STOPPED if srv.config.enabled else ServerState.DISABLED
        self._extra_env = extra_env or {}
        self.handshake_timeout = handshake_timeout
        self._registration = ToolRegistration(self, registry, settings_store)
        self._router = CallRouter(self)
        self._listeners: list[Callable[[McpEvent], None]] = []
        #: Tasks/futures started without an awaiting caller, kept so they are not collected.
        self._background: set[Any] = set()
        self.icons = ServerIcons(IconCache(lambda: cache_dir() / "mcp-icons"))
        self._thread: threading.Thread | None = None
        if loop is not None:
            self._loop = loop
        else:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="echo-desk-mcp", daemon=True)
            self._thread.start()
        #: Set when ``aclose`` begins: from then on nothing starts a server (``_start`` refuses).
        self._closing = False
        self._closed = False
        #: What was put aside and not yet told when it closed (``left_untold``).
        self._untold: list[Untold] = []
        #: Called (on the manager's loop) with what the check at a server's end put aside when it
        #: stopped or ended on its own while Echo Desk runs (not as it quits): the owner records it
        #: in the audit log then, not only if a call comes after or when Echo Desk quits.
        self.record_left: Callable[[Untold], None] | None = None
        self._unsubscribe_settings = settings_store.subscribe(self._on_settings)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the manager's loop; cancelling the caller cancels it there too."""
        if _running_loop() is self._loop:
            return await coro
        if self._closed:
            coro.close()
            raise ManagerClosed("the MCP manager is closed")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    # -- events and status ---------------------------------------------------------------------

    def subscribe(self, listener: Callable[[McpEvent], None]) -> Callable[[], None]:
        """Call ``listener`` on every change (on the manager's thread); returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, kind: str, name: str) -> None:
        status = self.status(name)
        for listener in list(self._listeners):
            try:
                listener(McpEvent(kind=kind, server=name, status=status))
            except Exception:  # a broken listener must not stop the manager
                log.exception("MCP event listener failed")

    def _set(self, name: str, state: ServerState, detail: str = "") -> None:
        srv = self._servers[name]
        # A fixed phrase (``N_``) kept re-translatable: the CLI and a call's error show the detail
        # with ``shown``, which translates only what is ``deferred``.
        detail = detail if not detail or isinstance(detail, Deferred) else deferred(detail)
        srv.state, srv.detail = state, detail
        if srv.conn is not None:
            srv.stderr = srv.conn.stderr_tail
        self._emit("status", name)

    def server_names(self) -> list[str]:
        return list(self._servers)

    def statuses(self) -> list[ServerStatus]:
        return [self.status(name) for name in list(self._servers)]

    def integrity_warnings(self) -> dict[str, tuple[IntegrityWarning, ...]]:
        """Tools that look like an attempt to steer the model, across every server (``integrity``)."""
        return tool_warnings(texts_of(built.tool for srv in list(self._servers.values())
                                      for built in list(srv.tools.values())))

    def status(self, name: str) -> ServerStatus:
        srv = self._servers[name]
        conn = srv.conn
        warnings = self.integrity_warnings() if srv.tools else {}
        return ServerStatus(
            name=name,
            state=srv.state,
            transport=srv.config.transport,
            detail=srv.detail,
            stderr_tail=conn.stderr_tail if conn is not None else srv.stderr,
            tools=tuple(tool_info(srv, built, warnings.get(built.tool.name, ())) for built in list(srv.tools.values())),
            protocol_version=conn.protocol_version if conn is not None else "",
            server_info=conn.server_info if conn is not None else "",
            problems=tuple(srv.problems),
            sign_in=srv.sign_in,
            icon=self.icons.of(name),
        )

    def readiness(self, server: str, registry_name: str) -> str:
        """Why a tool cannot be offered now (changed since approved, server off); empty if it can."""
        return readiness(self._servers.get(server), registry_name)

    def offline_detail(self, server: str) -> str:
        """For the catalog: the server's tools stay listed (and offered) after it failed, since
        the next call starts it again; until then they cannot answer, and the catalog says so
        rather than "Ready". Empty while it is connected (or its tools are not listed)."""
        srv = self._servers.get(server)
        if srv is None or not srv.tools or srv.state in (ServerState.CONNECTED, ServerState.DISABLED,
                                                         ServerState.AWAITING_APPROVAL):
            return ""  # off or waiting for approval: ``readiness`` says it
        return deferred(N_("The server is not connected ({state}): the next call starts it again"),
                        state=deferred(STATE_LABELS[srv.state]))

    def declares_output_schema(self, server: str, registry_name: str) -> bool:
        srv = self._servers.get(server)
        built = srv.tools.get(registry_name) if srv is not None else None
        return built is not None and built.tool.output_schema is not None

    def server_target(self, name: str) -> str:
        # Asked on every call (twice when previewed): quoted once per configuration, not per call.
        config = self._servers[name].config
        kept = self._targets.get(name)
        if kept is None or kept[0] is not config:
            kept = self._targets[name] = (config, approvals.server_target(config))
        return kept[1]

    def tools_of(self, name: str) -> list[Tool]:
        return [built.tool for built in self._servers[name].tools.values()]

    def config_of(self, name: str) -> ServerConfig:
        return self._servers[name].config

    def configs(self) -> dict[str, ServerConfig]:
        return {name: srv.config for name, srv in self._servers.items()}

    # -- approvals -----------------------------------------------------------------------------

    def start_request(self, name: str) -> ServerStartRequest | None:
        """What the person must approve before ``name`` starts; ``None`` when already approved."""
        return approvals.start_request(self._servers[name].config, self.settings_store.current)

    def approve_start(self, name: str, fingerprint: str) -> bool:
        """Record the approval of the request the person saw; ``False`` if the config changed."""
        return approvals.record_approval(self.settings_store, self._servers[name].config, fingerprint)

    def revoke_start(self, name: str) -> None:
        approvals.revoke(self.settings_store, name)

    async def approve_tool_change(self, registry_name: str) -> bool:
        """The person re-approved a changed tool: pin its current definition and unblock it."""

        async def run() -> bool:
            for name, srv in self._servers.items():
                if self._registration.approve_change(srv, registry_name):
                    self._emit("tools", name)
                    return True
            return False

        return await self._on_loop(run())

    async def _approved(self, name: str) -> bool:
        request = self.start_request(name)
        if request is None:
            return True
        self._set(name, ServerState.AWAITING_APPROVAL, request.summary)
        if isinstance(self.host, ServerStartApprover):
            asked = asyncio.ensure_future(self.host.approve_server_start(request))
            elsewhere = asyncio.ensure_future(self._approved_elsewhere(request))
            try:
                await asyncio.wait({asked, elsewhere}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in (asked, elsewhere):
                    waiting.cancel()  # the question closes once answered in the command line
            if elsewhere.done() and not elsewhere.cancelled():
                return True
            if asked.result():
                return self.approve_start(name, request.fingerprint)
            self._set(name, ServerState.AWAITING_APPROVAL, N_("you declined to start this server"))
        return False

    async def _approved_elsewhere(self, request: ServerStartRequest) -> None:
        """Returns once the settings hold the approval of exactly ``request`` (made meanwhile in
        another process, ``echo-desk mcp approve``, and taken by ``SettingsStore``)."""
        loop = asyncio.get_running_loop()
        approved = asyncio.Event()

        def look(settings: Settings) -> None:
            if settings.mcp_approved.get(request.server) == request.fingerprint:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(approved.set)

        unsubscribe = self.settings_store.subscribe(look)
        try:
            look(self.settings_store.current)
            await approved.wait()
        finally:
            unsubscribe()

    # -- lifecycle -----------------------------------------------------------------------------

    async def start_all(self, only: Collection[str] | None = None) -> list[ServerStatus]:
        """Start every enabled server (or those of ``only``), concurrently; returns the statuses."""

        async def run() -> None:
            names = [n for n, s in self._servers.items() if s.config.enabled and (only is None or n in only)]
            await asyncio.gather(*(self._start(n) for n in names), return_exceptions=True)

        await self._on_loop(run())
        return self.statuses()

    async def start(self, name: str) -> ServerStatus:
        await self._on_loop(self._start(name))
        return self.status(name)

    async def restart(self, name: str) -> ServerStatus:
        async def run() -> None:
            await self._stop(name, restarting=True)
            await self._start(name)

        await self._on_loop(run())
        return self.status(name)

    async def stop(self, name: str) -> ServerStatus:
        await self._on_loop(self._stop(name))
        return self.status(name)

    async def _start(self, name: str) -> None:
        srv = self._servers[name]
        async with srv.lock:
            # Checked under the lock: a start that waited there while ``aclose`` stopped the
            # server would otherwise start it again as the app quits.
            self._refuse_when_closing()
            if srv.conn is not None and srv.conn.connected:
                return
            await self._after_ended(srv)
            if not srv.config.enabled:
                self._set(name, ServerState.DISABLED)
                return
            clash = self._name_clash(name)
            if clash:
                self._set(name, ServerState.ERROR, clash)
                return
            if not await self._approved(name):
                return
            self._refuse_when_closing()  # the approval may have been given as the app quit
            self._set(name, ServerState.STARTING)
            conn = ServerConnection(
                srv.config,
                elicitation=self._router.elicitation_for(name),
                on_tools_changed=lambda: self._refresh(name),
                on_lost=lambda reason: self._lost(name, conn, reason),
                extra_env=self._extra_env,
                sandbox_settings=lambda: self.settings_store.current.sandbox,
                owed=self._owed,
            )
            srv.conn = conn
            try:
                await conn.start(self.handshake_timeout)
                listed = await asyncio.wait_for(conn.list_tools(), self.handshake_timeout)
            except Exception as exc:  # noqa: BLE001 — any failure to start is shown on the server's row, never raised into the app
                await conn.close()
                srv.stderr = conn.stderr_tail
                srv.conn = None
                if not self._note_sign_in_needed(srv, conn):
                    self._set(name, ServerState.ERROR, conn.failure or _start_failed(srv.config, exc, conn))
                return
            srv.sign_in = _summary(conn)
            self._install(name, listed)

    async def _after_ended(self, srv: ServerRecord) -> None:
        """Before a start: the check after the last process's end has run (its snapshot of the
        person's folder must not hold what that process planted), and what it put aside is kept."""
        for ended in (srv.conn, srv.ended):
            if ended is not None:
                await ended.end_checked()
                srv.left.extend(ended.take_left())
        if srv.conn is not None and not srv.conn.connected:
            srv.conn = None
        srv.ended = None

    def take_left(self, name: str) -> tuple[Planted, ...]:
        """What the checks after the server's ends put aside, once: the next call's result says it."""
        srv = self._servers.get(name)
        if srv is None:
            return ()
        if srv.ended is not None:
            srv.left.extend(srv.ended.take_left())
        left, srv.left = tuple(srv.left), []
        return left

    def take_recorded(self, name: str, taken: tuple[Planted, ...]) -> frozenset[Planted]:
        """Those of ``taken`` (from ``take_left``) the audit log already has (``record_left``), once."""
        srv = self._servers.get(name)
        if srv is None or not srv.recorded:
            return frozenset()
        recorded = srv.recorded.intersection(taken)
        srv.recorded -= recorded
        return frozenset(recorded)

    def _keep_untold(self, records: dict[str, ServerRecord]) -> None:
        """What the ends of servers reconfigured (switched off, changed) or removed put aside, which
        no call has said: still to be told, by the new record's next call or as Echo Desk quits."""
        for name, old in records.items():
            new = self._servers.get(name)
            if new is old:
                continue
            left = (*old.left, *(old.ended.take_left() if old.ended is not None else ()))
            if not left:
                continue
            if new is not None:
                new.left.extend(left)
                new.recorded.update(old.recorded)
            else:
                self._untold.append(Untold(name, old.config.cwd or "", left, frozenset(old.recorded.intersection(left))))

    def _left_at_end(self, name: str, srv: ServerRecord, found: tuple[Planted, ...]) -> None:
        """Record what the check at the server's end found, as it stopped (``record_left``); the
        next call's result, or the notice as Echo Desk quits, still tells the person."""
        srv.left.extend(found)
        if not found or self.record_left is None or self._closing:
            return  # (as Echo Desk quits: recorded with what no call said, ``left_untold``)
        try:
            self.record_left(Untold(name, os.path.expanduser(srv.config.cwd or ""), found))
        except Exception:  # recording must not stop the stop: it is recorded as Echo Desk quits instead
            log.exception("what MCP server %s left as it stopped could not be recorded", name)
            return
        srv.recorded.update(found)

    def _refuse_when_closing(self) -> None:
        if self._closing:
            raise ManagerClosed("the MCP manager is closing: no server is started any more")

    def _note_sign_in_needed(self, srv: ServerRecord, conn: ServerConnection) -> bool:
        """The server asked for a sign-in (or for more consent): say so on its row."""
        needed = conn.sign_in_needed
        if needed is None:
            return False
        bearer = conn.bearer
        srv.challenge = bearer.challenge if bearer is not None else None
        if srv.challenge is not None and srv.challenge.error == "insufficient_scope":
            srv.extra_scope = needed.scope
        srv.sign_in = None
        self._set(srv.config.name, ServerState.NEEDS_SIGN_IN, needed.text)
        return True

    def sign_in_needed(self, name: str, conn: ServerConnection) -> bool:
        """A call found the server asking for a sign-in: close the session, show Sign in."""
        srv = self._servers.get(name)
        if srv is None or srv.conn is not conn or conn.sign_in_needed is None:
            return False
        srv.conn = None
        self._registration.uninstall(srv)
        self._note_sign_in_needed(srv, conn)
        task = self._loop.create_task(conn.close())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return True

    # -- signing in (OAuth) --------------------------------------------------------------------

    async def sign_in(self, name: str, open_url: OpenUrl) -> ServerStatus:
        """Sign in to an HTTP server (the browser opens through ``open_url``), then connect.

        A failed step is the server's detail (``NEEDS_SIGN_IN``); nothing is raised."""

        async def run() -> None:
            srv = self._servers[name]
            cfg = srv.config
            if cfg.is_stdio:
                self._set(name, ServerState.ERROR, N_("a local (stdio) server has no sign-in"))
                return
            if not await self._approved(name):
                return
            await self._stop(name)
            self._set(name, ServerState.SIGNING_IN, N_("Waiting for you to sign in in the browser"))
            try:
                settings = ClientSettings(client_id=cfg.oauth.client_id, client_secret=cfg.resolved_client_secret(),
                                          client_metadata_url=cfg.oauth.client_metadata_url, scope=cfg.oauth.scope)
                await oauth_sign_in(name, cfg.url, settings, open_url, extra_scope=srv.extra_scope,
                                    challenge=srv.challenge)
            except SignInError as exc:
                self._set(name, ServerState.NEEDS_SIGN_IN, exc.text)
                return
            except ConfigError as exc:  # e.g. the keyring holding the client secret cannot be read
                self._set(name, ServerState.NEEDS_SIGN_IN, explained(exc))
                return
            except asyncio.CancelledError:
                self._set(name, ServerState.NEEDS_SIGN_IN, N_("the sign-in was cancelled"))
                raise
            srv.extra_scope = None
            srv.challenge = None
            await self._start(name)

        await self._on_loop(run())
        return self.status(name)

    async def sign_out(self, name: str) -> SignOutResult:
        """Disconnect, revoke the tokens at the service when it can, forget them here."""

        async def run() -> SignOutResult:
            await self._stop(name)
            result = await oauth_sign_out(name)
            srv = self._servers[name]
            srv.sign_in = None
            detail = N_("Signed out") if not result.problem else deferred(
                N_("Signed out here; the service did not revoke the sign-in: {problem}"), problem=result.problem)
            self._set(name, ServerState.NEEDS_SIGN_IN, detail)
            return result

        return await self._on_loop(run())

    def _name_clash(self, name: str) -> str:
        """Why ``name`` cannot run beside another enabled server whose tools would be named
        alike for the model (``fmt tools`` and ``fmt_tools``); empty when it can. Both are
        refused, whichever starts first, so no tool takes the other's name and settings."""
        prefix = server_prefix(name)
        others = sorted(
            other for other, srv in self._servers.items()
            if other != name and srv.config.enabled and server_prefix(other) == prefix
        )
        if not others:
            return ""
        return deferred(N_("its tools would be named like those of the server “{other}” ({prefix}…): rename one of "
                           "them in mcp.json"), other=others[0], prefix=prefix)

    def _install(self, name: str, listed: list[Any]) -> None:
        error = self._registration.install(self._servers, name, listed)
        if error:
            self._set(name, ServerState.ERROR, error)
            return
        self._set(name, ServerState.CONNECTED)
        self._emit("tools", name)
        self._learn_icons(name, listed)

    def _learn_icons(self, name: str, listed: list[Any]) -> None:
        """Note the server's and its tools' icons; load the new ones, then say so (``tools``)."""
        srv = self._servers[name]
        by_original = {built.tool.original_name: registry_name for registry_name, built in srv.tools.items()}
        named: dict[str, Any] = {registry_name: getattr(tool, "icons", None)
                                 for tool in listed if (registry_name := by_original.get(tool.name))}
        named[name] = srv.conn.server_icons if srv.conn is not None else None
        new = self.icons.learn(named)
        if not new:
            return

        async def load() -> None:
            if await self.icons.load(new):
                self._emit("tools", name)

        task = self._loop.create_task(load())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def icon_of(self, key: str) -> bytes | None:
        """The loaded icon of a server (by name) or of an MCP tool (by registry name)."""
        return self.icons.of(key)

    async def _stop(self, name: str, *, restarting: bool = False) -> None:
        srv = self._servers[name]
        async with srv.lock:
            conn, srv.conn = srv.conn, None
            if conn is not None:
                await conn.close(restarting=restarting)
                srv.stderr = conn.stderr_tail
                self._left_at_end(name, srv, conn.take_left())
            self._registration.uninstall(srv)
            if not srv.config.enabled:
                self._set(name, ServerState.DISABLED)
            else:
                self._set(name, ServerState.RESTARTING if restarting else ServerState.STOPPED)

    def _lost(self, name: str, conn: ServerConnection, reason: str) -> None:
        srv = self._servers.get(name)
        if srv is None or srv.conn is not conn:
            return
        srv.conn = None
        srv.stderr = conn.stderr_tail
        # Its check after the end has run (lost on its own), or ``close`` runs it (a call found it lost).
        srv.ended = conn
        self._left_at_end(name, srv, conn.take_left())
        if conn.restarting and not conn.failure:
            # Ended for new sandbox paths, and its end noticed before the restart ran: that
            # restart is on its way, so the row does not flash an error it will not keep.
            self._set(name, ServerState.RESTARTING)
            return
        # The tools stay registered: the next call starts the server again (once).
        self._set(name, ServerState.ERROR, conn.failure or reason)

    def connection_failed(self, name: str, conn: ServerConnection, reason: str) -> None:
        """A call found the connection dead (e.g. an HTTP server went away): mark the server
        in error and close the session; the next call connects again."""
        srv = self._servers.get(name)
        if srv is None or srv.conn is not conn:
            return
        self._lost(name, conn, reason)
        task = self._loop.create_task(self._close_lost(name, srv, conn))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _close_lost(self, name: str, srv: ServerRecord, conn: ServerConnection) -> None:
        """Close a connection a call found lost. Its end is checked in ``close`` (the runner no
        longer does once it closes), after ``_lost`` ran: what that check finds is recorded now,
        as the loss's, not when the next call or the quit takes it (a call that stopped waiting
        for the check, or none after it)."""
        await conn.close()
        self._left_at_end(name, srv, conn.take_left())

    def _on_settings(self, settings: Settings) -> None:
        """On any thread: a sandboxed server started before the person hid a path (or protected
        one) does not see the change until it starts again, so it is restarted."""
        wanted = persons_paths(settings.sandbox)
        stale = [name for name, srv in list(self._servers.items())
                 if srv.conn is not None and srv.conn.started_with is not None
                 and persons_paths(srv.conn.started_with) != wanted]
        if stale and not self._closing:
            for name in stale:
                # Ended here, before the change is reported done: until its restart (on the
                # manager's loop, later) a call could still reach it and read the newly hidden path.
                srv = self._servers[name]
                conn = srv.conn
                if conn is None:
                    continue
                if not conn.end_now(restarting=True):
                    log.warning("MCP server %s: could not be ended at once for the new sandbox paths", name)
                future = asyncio.run_coroutine_threadsafe(self._restart_stale(srv, conn), self._loop)
                self._background.add(future)
                future.add_done_callback(self._background.discard)

    async def _restart_stale(self, srv: ServerRecord, ended: ServerConnection) -> None:
        """Start ``srv`` again in place of ``ended``, the connection ended for new sandbox paths.

        Its end may have been noticed before this runs (a call in flight failing, its stderr
        closing): the manager then let go of the connection and shows the server restarting (or
        in error, when it failed on its own). It is started all the same, or it stayed down until
        the next call."""
        name = srv.config.name
        if self._closing or self._servers.get(name) is not srv:
            return  # closing, or removed or reconfigured meanwhile (applying that started it)
        if srv.conn is ended:
            await self._stop(name, restarting=True)
        elif srv.conn is not None or srv.state not in (ServerState.RESTARTING, ServerState.ERROR):
            return  # started again meanwhile (with the paths as they are now), or stopped by the person
        log.info("MCP server %s: restarted for the sandbox's new hidden or protected paths", name)
        await self._start(name)

    def start_in_background(self) -> None:
        """``start_all`` without waiting (the app at launch); statuses arrive as events."""
        future = asyncio.run_coroutine_threadsafe(self.start_all(), self._loop)
        self._background.add(future)
        future.add_done_callback(self._background.discard)

    async def _refresh(self, name: str) -> None:
        """After ``list_changed``: list again, re-check pins, re-register.

        One listing at a time per server: announcements that come while one runs are answered
        by a single listing after it. A server may announce as often as it likes; listing for
        each at once put hundreds of requests in flight, and the answer that came back last (not
        the newest) was installed."""
        srv = self._servers.get(name)
        if srv is None:
            return
        if srv.relisting is None:
            srv.relisting = Coalesced(lambda: self._list_again(name, srv))
        await srv.relisting.run()

    async def _list_again(self, name: str, srv: ServerRecord) -> None:
        self._emit("list_changed", name)
        conn = srv.conn
        if conn is None or not conn.connected:
            return
        unreadable = conn.unreadable
        try:
            # Under a deadline: one listing at a time, so one that never ends would stop them all.
            async with asyncio.timeout(conn.config.timeout):
                listed = await conn.list_tools()
        except Exception as exc:  # noqa: BLE001 — any failure is the server's state on its row
            reason = with_unreadable(explained(exc), conn.unreadable - unreadable, conn.unreadable_reason)
            self._set(name, ServerState.ERROR, deferred(N_("listing tools after a change failed: {reason}"),
                                                        reason=reason))
            return
        if self._servers.get(name) is srv:  # not removed or reconfigured while it listed
            self._install(name, listed)

    # -- editing the configuration (the settings page) ---------------------------------------

    async def apply_config(self, servers: dict[str, ServerConfig], *, wait: bool = True) -> list[ServerStatus]:
        """Run what ``servers`` configure, without saving them: stop removed or changed servers,
        start new or changed enabled ones (a changed command needs a new approval). Edits that
        save go through ``set_server``, ``rename_server``, ``remove_server`` and ``set_enabled``.

        ``wait=False`` returns once the configuration is in place and lets the starts run on
        (a form closes at once while the host may still be asking for the first-start approval).
        """

        async def run() -> None:
            records = self._servers
            for name in [n for n in records if n not in servers or records[n].config != servers[n]]:
                await self._stop(name)
            self._servers = {
                name: records[name] if name in records and records[name].config == cfg else ServerRecord(config=cfg)
                for name, cfg in servers.items()
            }
            self._keep_untold(records)
            for name, srv in self._servers.items():
                if not srv.config.enabled:
                    self._set(name, ServerState.DISABLED)
            starts = [n for n, s in self._servers.items() if s.config.enabled and s.conn is None]
            self.config_error = ""
            started = asyncio.gather(*(self._start(n) for n in starts), return_exceptions=True)
            if wait:
                await started
            else:
                self._background.add(started)
                started.add_done_callback(self._background.discard)

        await self._on_loop(run())
        return self.statuses()

    def edit_refusal(self) -> str:
        """Why an edit would not be saved now (a ``deferred`` message), or ``""``: while
        ``mcp.json`` cannot be read, a save would replace what the person wrote there."""
        if not self.config_error:
            return ""
        return deferred(N_("mcp.json could not be read, so nothing is saved: {error}. Fix the file and press Reload "
                           "first."), error=self.config_error)

    async def _edit(self, change: Callable[[dict[str, ServerConfig]], None], *, wait: bool = True) -> None:
        """Save ``change`` to ``mcp.json`` as it is now (with what another process added) and run
        the result. Nothing is saved while the file cannot be read: that would replace it."""
        if refusal := self.edit_refusal():
            raise ConfigError(refusal)
        self._saved = update_config(change, held=SavedConfig(self.configs(), self._saved.stamp))
        self.config_error = ""
        await self.apply_config(self._saved.servers, wait=wait)

    async def set_server(self, config: ServerConfig, *, wait: bool = True) -> ServerStatus:
        """Add or replace one server (saved to ``mcp.json``); ``wait`` as in ``apply_config``."""
        await self._edit(lambda servers: servers.update({config.name: config}), wait=wait)
        return self.status(config.name)

    async def rename_server(self, old: str, config: ServerConfig, *, wait: bool = True) -> ServerStatus:
        """``old`` becomes ``config`` (another name, perhaps other settings) in one save; the new
        entry needs its own first-start approval."""

        def rename(servers: dict[str, ServerConfig]) -> None:
            renamed = {(config.name if n == old else n): (config if n == old else c) for n, c in servers.items()}
            servers.clear()
            servers.update(renamed)
            servers.setdefault(config.name, config)  # ``old`` was removed meanwhile: still add it

        await self._edit(rename, wait=wait)
        return self.status(config.name)

    async def remove_server(self, name: str) -> None:
        """Stop a server, unregister its tools and drop it from ``mcp.json``."""
        def drop(servers: dict[str, ServerConfig]) -> None:
            servers.pop(name, None)

        await self._edit(drop)

    async def set_enabled(self, name: str, enabled: bool) -> ServerStatus:
        def switch(servers: dict[str, ServerConfig]) -> None:
            if name in servers:  # removed by another process meanwhile: it stays removed
                servers[name] = replace(servers[name], enabled=enabled)

        await self._edit(switch)
        if name not in self._servers:
            raise ConfigError(deferred(N_("“{name}” is no longer in mcp.json: another program removed it"), name=name))
        return self.status(name)

    def _read_config(self, running: dict[str, ServerConfig]) -> SavedConfig:
        """``mcp.json`` as it is now, and ``config_error`` set or cleared. A file that cannot be
        read gives ``running`` (what runs now), stamped so it is not read again until it changes."""
        try:
            saved = read_saved_config()
        except ConfigError as exc:
            self.config_error = explained(exc)  # ``str`` would drop the translation
            return SavedConfig(running, file_stamp(config_path()))
        self.config_error = ""
        return saved

    async def reload(self) -> list[ServerStatus]:
        """Re-read ``mcp.json`` (after an import or an edit by hand) and apply it."""
        self._saved = self._read_config(running=self.configs())
        if self.config_error:
            return self.statuses()
        return await self.apply_config(self._saved.servers)

    async def reload_if_changed(self) -> list[ServerStatus] | None:
        """``reload`` when another process changed ``mcp.json`` since this manager last read or
        wrote it (``echo-desk gateway install``, ``echo-desk mcp import``, an editor);
        ``None`` when it did not."""
        stamp = file_stamp(config_path())
        if stamp == self._saved.stamp and (not recently_written(stamp) or self._saved_servers_still_there()):
            return None
        return await self.reload()

    def _saved_servers_still_there(self) -> bool:
        try:
            return load_config() == self._saved.servers
        except ConfigError:
            return False

    # -- calls ---------------------------------------------------------------------------------

    async def call_tool(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> ToolResult:
        """Call ``tool`` on ``server`` with a timeout; errors come back as error kinds."""
        return await self.submit_call(server, registry_name, tool, arguments, ctx)

    def submit_call(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> asyncio.Future[ToolResult]:
        """``call_tool`` as a future of the calling loop (no extra task: this is the hot path)."""
        if self._closed:
            raise ManagerClosed("the MCP manager is closed")
        coro = self._router.call(server, registry_name, tool, arguments, ctx)
        if _running_loop() is self._loop:
            return self._loop.create_task(coro)
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def call_here(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> Coroutine[Any, Any, ToolResult] | None:
        """``call_tool`` as a coroutine for the caller to await itself, when the caller runs on this
        manager's loop (a gateway's client is served there): no task between them, so the answer
        reaches the caller without two more turns of the loop. ``None`` on any other loop."""
        if self._closed:
            raise ManagerClosed("the MCP manager is closed")
        if _running_loop() is not self._loop:
            return None
        return self._router.call(server, registry_name, tool, arguments, ctx)

    async def ensure_connection(self, name: str) -> ServerConnection | None:
        """The live connection, starting the server once if it is not connected (our loop only).
        ``ManagerClosed`` once ``aclose`` has begun."""
        srv = self._servers[name]
        if srv.conn is None or not srv.conn.connected:
            await self._start(name)
        return srv.conn if srv.conn is not None and srv.conn.connected else None

    # -- resources and prompts (the person's, never the model's) ------------------------------

    async def _connected(self, name: str) -> ServerConnection:
        try:
            conn = await self.ensure_connection(name)
        except ManagerClosed:
            raise ResourceError(ResourceProblem.UNAVAILABLE, N_("Echo Desk is closing")) from None
        if conn is None:
            raise ResourceError(ResourceProblem.UNAVAILABLE, N_("the server {name} is not connected"), name=name)
        return conn

    async def resources(self, name: str) -> ResourceListing:
        """What ``name`` offers to attach: its resources and resource templates."""

        async def run() -> ResourceListing:
            conn = await self._connected(name)
            try:
                listed = await conn.list_resources(MAX_LISTED)
                templates = await conn.list_resource_templates(MAX_LISTED)
            except Exception as exc:  # noqa: BLE001 — shown in the panel as the server's answer
                raise _unavailable(exc) from None
            return ResourceListing(server=name, resources=tuple(resource_info(r) for r in listed),
                                   templates=tuple(template_of(t) for t in templates),
                                   subscribable=conn.resources_subscribable)

        return await self._on_loop(run())

    async def read_resource(self, name: str, uri: str, info: ResourceInfo | None = None) -> AttachedResource:
        """Read ``uri`` for a message, within the caps (``ResourceError`` says why not)."""

        async def run() -> AttachedResource:
            check_declared_size(info)
            conn = await self._connected(name)
            try:
                async with asyncio.timeout(conn.config.timeout):
                    with self._router.person_request(name):
                        result = await conn.read_resource(uri)
            except TimeoutError:
                raise ResourceError(ResourceProblem.UNAVAILABLE, N_("the server did not send it within {seconds} s"),
                                    seconds=f"{conn.config.timeout:g}") from None
            except Exception as exc:  # noqa: BLE001 — the server's refusal, said in the panel
                raise _unavailable(exc) from None
            return attachment_from(name, uri, result, info.name if info is not None else "")

        return await self._on_loop(run())

    async def subscribe_resource(self, name: str, uri: str, listener: Callable[[str], None]) -> Callable[[], None]:
        """``listener(uri)`` (on the manager's thread) whenever the server says ``uri`` changed."""

        async def run() -> Callable[[], None]:
            conn = await self._connected(name)
            try:
                stop = await conn.subscribe(uri, listener)
            except Exception as exc:  # noqa: BLE001 — said in the panel
                raise _unavailable(exc) from None
            def unsubscribe() -> None:
                self._loop.call_soon_threadsafe(stop)

            return unsubscribe

        return await self._on_loop(run())

    async def prompts(self) -> list[PromptInfo]:
        """Every prompt of the connected servers (a server that fails to list is left out)."""

        async def one(name: str) -> list[PromptInfo]:
            srv = self._servers[name]
            if srv.conn is None or not srv.conn.connected:
                return []
            try:
                return [prompt_info(name, p) for p in await srv.conn.list_prompts(MAX_LISTED)]
            except Exception:
                log.debug("listing the prompts of %s failed", name, exc_info=True)
                return []

        async def run() -> list[PromptInfo]:
            found = await asyncio.gather(*(one(name) for name in list(self._servers)))
            return [prompt for listed in found for prompt in listed]

        return await self._on_loop(run())

    async def get_prompt(self, name: str, prompt: str, arguments: dict[str, str]) -> PromptText:
        """The text ``prompt`` of ``name`` produces with ``arguments`` (for the message box)."""

        async def run() -> PromptText:
            conn = await self._connected(name)
            try:
                async with asyncio.timeout(conn.config.timeout):
                    with self._router.person_request(name):
                        result = await conn.get_prompt(prompt, arguments)
            except TimeoutError:
                raise ResourceError(ResourceProblem.UNAVAILABLE, N_("the server did not send it within {seconds} s"),
                                    seconds=f"{conn.config.timeout:g}") from None
            except Exception as exc:  # noqa: BLE001 — the server's refusal, said beside the form
                raise _unavailable(exc) from None
            return prompt_text(result)

        return await self._on_loop(run())

    # -- closing -------------------------------------------------------------------------------

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def left_untold(self) -> list[Untold]:
        """Once closed: what the checks at its servers' ends put aside that no call's result
        said (a server that planted and then ended, never called again; the ends while closing)."""
        return [replace(left, folder=os.path.expanduser(left.folder)) for left in self._untold]

    async def aclose(self) -> None:
        """Close every session, end every child process, stop the manager's thread."""
        if self._closing:
            return
        self._closing = True
        self._unsubscribe_settings()

        async def run() -> None:
            await asyncio.gather(*(self._stop(n) for n in self._servers), return_exceptions=True)
            for name, srv in self._servers.items():
                # No call will come to say what the last checks put aside (``left_untold``).
                left = self.take_left(name)
                if left:
                    self._untold.append(Untold(name, srv.config.cwd or "", left, self.take_recorded(name, left)))

        try:
            await self._on_loop(run())
        finally:
            self._closed = True
            if self._thread is not None:  # our own loop: stop it (a shared one is its owner's)
                self._loop.call_soon_threadsafe(self._loop.stop)
                await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
                if not self._thread.is_alive():
                    self._loop.close()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _unavailable(exc: BaseException) -> ResourceError:
    # Not "the server answered: …": most often it did not (a time-out, a lost connection).
    return ResourceError(ResourceProblem.UNAVAILABLE, N_("the server did not give it: {why}"),
                         why=explained(exc))


def _summary(conn: ServerConnection) -> SignInSummary | None:
    signed = conn.bearer.signed_in if conn.bearer is not None else None
    if signed is None or signed.tokens is None:
        return None
    return SignInSummary(issuer=signed.issuer, registered_by=signed.client.registered_by,
                         scope=signed.tokens.scope or "", expires_at=signed.tokens.expires_at)


def _start_failed(config: ServerConfig, exc: BaseException, conn: ServerConnection) -> str:
    """Why a server did not start, for its row: an HTTP server that cannot be reached says so
    (not the HTTP client's "All connection attempts failed")."""
    ending = ending_of(exc) if not config.is_stdio else Ending.LOST
    if ending is not Ending.LOST:
        return gone_detail(ending, config.url)
    return with_unreadable(explained(exc), conn.unreadable, conn.unreadable_reason)
