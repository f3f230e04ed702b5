"""``McpManager``: every MCP server of one app session, on one dedicated thread and loop.

Sessions live on the manager's own event loop, so a call can come from any loop (the tool
worker's, the UI's, the CLI's): ``call_tool`` hops over and back, and cancelling the caller
cancels the request on the wire. Status changes reach subscribers as ``McpEvent`` callbacks
on the manager's thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import mcp_types as types

from echo_desk.mcp.calls import CallRouter
from echo_desk.mcp.config import ConfigError, ServerConfig, load_config, save_config
from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.pins import PinStore
from echo_desk.mcp.status import (
    McpEvent,
    McpToolInfo,
    ServerStartApprover,
    ServerStartRequest,
    ServerState,
    ServerStatus,
    ToolFlag,
)
from echo_desk.mcp.toolset import BuiltTool, build_tools
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.tools import Tool, ToolExecutionContext, ToolHost, ToolResult

log = logging.getLogger(__name__)
T = TypeVar("T")


class RegistryLike(Protocol):
    """The part of ``echo_desk.agent.registry.ToolRegistry`` the manager uses."""

    def register(self, tool: Tool, source: str = ...) -> Any: ...

    def unregister(self, name: str) -> Any: ...

    def get(self, name: str) -> Any: ...


@dataclass
class _Server:
    config: ServerConfig
    state: ServerState = ServerState.STOPPED
    detail: str = ""
    conn: ServerConnection | None = None
    tools: dict[str, BuiltTool] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stderr: tuple[str, ...] = ()
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class McpManager:
    """Connects the configured servers and keeps their tools in the registry.

    Use ``async with McpManager(...)`` or call ``aclose()``. Public coroutines may be awaited
    from any event loop.
    """

    def __init__(
        self,
        settings_store: SettingsStore,
        *,
        registry: RegistryLike | None = None,
        host: ToolHost | None = None,
        servers: dict[str, ServerConfig] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.settings_store = settings_store
        self.registry = registry
        self.host = host
        self.config_error = ""
        if servers is None:
            try:
                servers = load_config()
            except ConfigError as exc:
                self.config_error = str(exc)
                servers = {}
        self._servers = {name: _Server(config=cfg) for name, cfg in servers.items()}
        self._extra_env = extra_env or {}
        self._pins = PinStore()
        self._listeners: list[Callable[[McpEvent], None]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="echo-desk-mcp", daemon=True)
        self._thread.start()
        self._closed = False
        self._router = CallRouter(self)
        for srv in self._servers.values():
            srv.state = ServerState.STOPPED if srv.config.enabled else ServerState.DISABLED

    # -- loop hopping --------------------------------------------------------------------------

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the manager's loop; cancelling the caller cancels it there too."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            return await coro
        if self._closed:
            coro.close()
            raise RuntimeError("the MCP manager is closed")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    # -- events and status ---------------------------------------------------------------------

    def subscribe(self, listener: Callable[[McpEvent], None]) -> Callable[[], None]:
        """Call ``listener`` on every status/tool change (on the manager's thread)."""
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
        srv.state, srv.detail = state, detail
        if srv.conn is not None:
            srv.stderr = srv.conn.stderr_tail
        self._emit("status", name)

    def server_names(self) -> list[str]:
        return list(self._servers)

    def statuses(self) -> list[ServerStatus]:
        return [self.status(name) for name in self._servers]

    def status(self, name: str) -> ServerStatus:
        srv = self._servers[name]
        conn = srv.conn
        return ServerStatus(
            name=name,
            state=srv.state,
            transport=srv.config.transport,
            detail=srv.detail,
            stderr_tail=conn.stderr_tail if conn is not None else srv.stderr,
            tools=tuple(self._tool_info(name, built) for built in srv.tools.values()),
            protocol_version=conn.protocol_version if conn is not None else "",
            server_info=conn.server_info if conn is not None else "",
            problems=tuple(srv.problems),
        )

    def _tool_info(self, server: str, built: BuiltTool) -> McpToolInfo:
        tool = built.tool
        flags = []
        if tool.hidden_characters:
            shown = ", ".join(sorted(set(tool.hidden_characters))[:8])
            flags.append(ToolFlag(kind="hidden_chars", detail=f"hidden characters removed: {shown}"))
        flags.extend(ToolFlag(kind="changed", detail=change) for change in built.changes)
        hints = {k: v for k, v in tool.annotations.items() if k.endswith("Hint")}
        if hints:
            flags.append(ToolFlag(kind="annotation", detail=", ".join(f"{k}={v}" for k, v in sorted(hints.items()))))
        detail = self.readiness(server, tool.name)
        return McpToolInfo(
            registry_name=tool.name,
            original_name=tool.original_name,
            title=tool.title,
            description=tool.description,
            annotations=dict(tool.annotations),
            ready=not detail,
            readiness=detail,
            flags=tuple(flags),
        )

    def readiness(self, server: str, registry_name: str) -> str:
        """Why a tool cannot be offered now; empty when it can."""
        srv = self._servers.get(server)
        if srv is None:
            return "the MCP server is no longer configured"
        built = srv.tools.get(registry_name)
        if built is not None and built.changes:
            return "the server changed this tool since you approved it: " + "; ".join(built.changes)
        if srv.state in (ServerState.DISABLED, ServerState.AWAITING_APPROVAL):
            return f"MCP server {server!r}: {srv.state.value}"
        return ""

    def server_target(self, name: str) -> str:
        cfg = self._servers[name].config
        return " ".join(cfg.command_line()) if cfg.is_stdio else cfg.url

    def tools_of(self, name: str) -> list[Tool]:
        return [built.tool for built in self._servers[name].tools.values()]

    # -- approval ------------------------------------------------------------------------------

    def start_request(self, name: str) -> ServerStartRequest | None:
        """What the person must approve before ``name`` starts; ``None`` when already approved."""
        cfg = self._servers[name].config
        fingerprint = cfg.fingerprint()
        previous = self.settings_store.current.mcp_approved.get(name)
        if previous == fingerprint:
            return None
        return ServerStartRequest(
            server=name,
            transport=cfg.transport,
            command=cfg.command,
            args=cfg.args,
            env_names=tuple(sorted(cfg.env)),
            cwd=cfg.cwd,
            url=cfg.url,
            header_names=tuple(sorted(cfg.headers)),
            fingerprint=fingerprint,
            previous_fingerprint=previous,
            summary=f"Start MCP server {name!r}: {self.server_target(name)}",
        )

    def approve_start(self, name: str, fingerprint: str) -> bool:
        """Record the person's approval of exactly the request they saw (by its fingerprint)."""
        if self._servers[name].config.fingerprint() != fingerprint:
            return False  # the config changed while the dialog was open
        def change(s: Settings) -> None:
            s.mcp_approved = {**s.mcp_approved, name: fingerprint}

        self.settings_store.update(change)
        return True

    def revoke_start(self, name: str) -> None:
        def change(s: Settings) -> None:
            s.mcp_approved = {k: v for k, v in s.mcp_approved.items() if k != name}

        self.settings_store.update(change)

    async def _approved(self, name: str) -> bool:
        request = self.start_request(name)
        if request is None:
            return True
        host = self.host
        if isinstance(host, ServerStartApprover):
            self._set(name, ServerState.AWAITING_APPROVAL, request.summary)
            if await host.approve_server_start(request):
                return self.approve_start(name, request.fingerprint)
            self._set(name, ServerState.AWAITING_APPROVAL, "you declined to start this server")
            return False
        self._set(name, ServerState.AWAITING_APPROVAL, request.summary)
        return False

    # -- lifecycle -----------------------------------------------------------------------------

    async def start_all(self) -> list[ServerStatus]:
        """Start every enabled server (concurrently); returns their statuses."""

        async def run() -> None:
            names = [n for n, s in self._servers.items() if s.config.enabled]
            await asyncio.gather(*(self._start(n) for n in names), return_exceptions=True)

        await self._on_loop(run())
        return self.statuses()

    async def start(self, name: str) -> ServerStatus:
        await self._on_loop(self._start(name))
        return self.status(name)

    async def restart(self, name: str) -> ServerStatus:
        async def run() -> None:
            await self._stop(name)
            await self._start(name)

        await self._on_loop(run())
        return self.status(name)

    async def stop(self, name: str) -> ServerStatus:
        await self._on_loop(self._stop(name))
        return self.status(name)

    async def _start(self, name: str) -> None:
        srv = self._servers[name]
        async with srv.lock:
            if srv.conn is not None and srv.conn.connected:
                return
            if not srv.config.enabled:
                self._set(name, ServerState.DISABLED)
                return
            if not await self._approved(name):
                return
            self._set(name, ServerState.STARTING)
            conn = ServerConnection(
                srv.config,
                elicitation=self._router.elicitation_for(name),
                on_tools_changed=lambda: self._refresh(name),
                on_lost=lambda reason: self._lost(name, conn, reason),
                extra_env=self._extra_env,
            )
            srv.conn = conn
            try:
                await conn.start()
                listed = await conn.list_tools()
            except Exception as exc:
                srv.stderr = conn.stderr_tail
                await conn.close()
                srv.conn = None
                self._set(name, ServerState.ERROR, _explain(exc))
                return
            self._install(name, listed)

    async def _stop(self, name: str) -> None:
        srv = self._servers[name]
        async with srv.lock:
            conn, srv.conn = srv.conn, None
            if conn is not None:
                srv.stderr = conn.stderr_tail
                await conn.close()
            self._uninstall(name)
            self._set(name, ServerState.STOPPED if srv.config.enabled else ServerState.DISABLED)

    def _lost(self, name: str, conn: ServerConnection, reason: str) -> None:
        srv = self._servers.get(name)
        if srv is None or srv.conn is not conn:
            return
        srv.conn = None
        srv.stderr = conn.stderr_tail
        # The tools stay registered: the next call starts the server again (once).
        self._set(name, ServerState.ERROR, reason)

    async def _refresh(self, name: str) -> None:
        """After ``list_changed``: list again, re-check pins, re-register."""
        srv = self._servers[name]
        self._emit("list_changed", name)
        conn = srv.conn
        if conn is None or not conn.connected:
            return
        try:
            listed = await conn.list_tools()
        except Exception as exc:
            self._set(name, ServerState.ERROR, f"listing tools after a change failed: {_explain(exc)}")
            return
        self._install(name, listed)

    def _install(self, name: str, listed: list[types.Tool]) -> None:
        """Register the server's tools (all or none). Unchanged tools stay registered as they
        are, so a call dispatched during a re-list never finds its tool missing."""
        srv = self._servers[name]
        taken = {n for other, s in self._servers.items() if other != name for n in s.tools}
        if self.registry is not None:
            taken |= {n for n in _registry_names(self.registry) if n not in srv.tools}
        settings = self.settings_store.current
        built, problems = build_tools(self, srv.config, listed, settings, self._pins, taken)
        srv.problems = problems
        if problems:
            self._uninstall(name)
            self._set(name, ServerState.ERROR, "the server's tool list cannot be used; no tool was added")
            return
        old = srv.tools
        same = {
            item.tool.name
            for item in built
            if item.tool.name in old and old[item.tool.name].tool.definition_hash == item.tool.definition_hash
        }
        final = {item.tool.name: (old[item.tool.name] if item.tool.name in same else item) for item in built}
        if self.registry is not None:
            for stale in set(old) - same:
                self.registry.unregister(stale)
            for tool_name, item in final.items():
                if tool_name in same:
                    continue
                result = self.registry.register(item.tool, source=f"mcp:{name}")
                if not getattr(result, "ok", True):
                    srv.tools = final
                    self._uninstall(name)
                    srv.problems = [f"tool {item.tool.original_name!r}: {getattr(result, 'message', result)}"]
                    self._set(name, ServerState.ERROR, "the registry refused a tool; no tool was added")
                    return
        srv.tools = final
        self._pin_new([item for item in built if item.new_pin])
        self._set(name, ServerState.CONNECTED)
        self._emit("tools", name)

    def _uninstall(self, name: str) -> None:
        srv = self._servers[name]
        if self.registry is not None:
            for tool_name in srv.tools:
                self.registry.unregister(tool_name)
        srv.tools = {}

    def _pin_new(self, items: list[BuiltTool]) -> None:
        if not items:
            return

        def change(s: Settings) -> None:
            for item in items:
                current = s.tool(item.tool.name)
                s.tools = {**s.tools, item.tool.name: current.model_copy(update={"pinned_hash": item.tool.definition_hash})}

        for item in items:
            self._pins.put(item.tool.name, item.definition)
        self.settings_store.update(change)

    async def approve_tool_change(self, registry_name: str) -> bool:
        """The person re-approved a changed tool: pin its current definition and unblock it."""

        async def run() -> bool:
            for name, srv in self._servers.items():
                built = srv.tools.get(registry_name)
                if built is not None:
                    self._pins.put(registry_name, built.definition)
                    self.settings_store.set_tool(registry_name, pinned_hash=built.tool.definition_hash)
                    built.changes = []
                    self._emit("tools", name)
                    return True
            return False

        return await self._on_loop(run())

    # -- editing the configuration (the settings page) ---------------------------------------

    def configs(self) -> dict[str, ServerConfig]:
        return {name: srv.config for name, srv in self._servers.items()}

    async def apply_config(self, servers: dict[str, ServerConfig], *, save: bool = True) -> list[ServerStatus]:
        """Make ``servers`` the configuration: save ``mcp.json``, stop removed or changed
        servers, start new or changed enabled ones (a changed command needs a new approval).

        For add/edit/remove/enable on the settings page and after an import.
        """
        if save:
            save_config(servers)

        async def run() -> None:
            old = self._servers
            for name in [n for n in old if n not in servers or old[n].config != servers[n]]:
                await self._stop(name)
                if name not in servers:
                    del old[name]
            for name, cfg in servers.items():
                if name not in old:
                    old[name] = _Server(config=cfg)
                elif old[name].config != cfg:
                    old[name].config = cfg
                    old[name].stderr = ()
                    old[name].problems = []
            self._servers = {name: old[name] for name in servers}
            for name, srv in self._servers.items():
                if not srv.config.enabled:
                    self._set(name, ServerState.DISABLED)
            starts = [n for n, s in self._servers.items() if s.config.enabled and s.conn is None]
            await asyncio.gather(*(self._start(n) for n in starts), return_exceptions=True)
            self.config_error = ""

        await self._on_loop(run())
        return self.statuses()

    async def set_server(self, config: ServerConfig) -> ServerStatus:
        """Add or replace one server (saved to ``mcp.json``)."""
        await self.apply_config({**self.configs(), config.name: config})
        return self.status(config.name)

    async def remove_server(self, name: str) -> None:
        """Remove a server: stop it, unregister its tools, drop it from ``mcp.json``."""
        await self.apply_config({n: c for n, c in self.configs().items() if n != name})

    async def set_enabled(self, name: str, enabled: bool) -> ServerStatus:
        return await self.set_server(replace(self._servers[name].config, enabled=enabled))

    async def reload(self) -> list[ServerStatus]:
        """Re-read ``mcp.json`` (after an import or an edit by hand) and apply it."""
        try:
            servers = load_config()
        except ConfigError as exc:
            self.config_error = str(exc)
            return self.statuses()
        return await self.apply_config(servers, save=False)

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
            raise RuntimeError("the MCP manager is closed")
        coro = self._router.call(server, registry_name, tool, arguments, ctx)
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def ensure_connection(self, name: str) -> ServerConnection | None:
        """The live connection, starting the server once if it is not connected (on our loop)."""
        srv = self._servers[name]
        if srv.conn is None or not srv.conn.connected:
            await self._start(name)
        return srv.conn if srv.conn is not None and srv.conn.connected else None

    def config_of(self, name: str) -> ServerConfig:
        return self._servers[name].config

    # -- closing -------------------------------------------------------------------------------

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every session, end every child process, stop the manager's thread."""
        if self._closed:
            return

        async def run() -> None:
            await asyncio.gather(*(self._stop(n) for n in self._servers), return_exceptions=True)

        try:
            await self._on_loop(run())
        finally:
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
            if not self._thread.is_alive():
                self._loop.close()


def _registry_names(registry: RegistryLike) -> list[str]:
    entries = getattr(registry, "entries", None)
    if entries is None:
        return []
    return [getattr(entry, "tool", entry).name for entry in entries()]


def _explain(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_explain(e) for e in exc.exceptions)
    if isinstance(exc, TimeoutError):
        return "the server did not answer in time"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    return str(exc) or type(exc).__name__
