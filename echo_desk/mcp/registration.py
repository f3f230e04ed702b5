"""A server's tools in the registry: all or none, pinned, and described for the catalog."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types

from echo_desk.common.coalesced import Coalesced
from echo_desk.i18n import N_, deferred, for_model, for_person
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.connection import ServerConnection
from echo_desk.mcp.integrity import IntegrityWarning, WarningKind
from echo_desk.mcp.oauth.discovery import Challenge
from echo_desk.mcp.pins import PinStore
from echo_desk.mcp.status import FlagKind, McpToolInfo, ServerState, SignInSummary, ToolFlag
from echo_desk.mcp.toolset import BuiltTool, build_tools
from echo_desk.store.settings import Settings, SettingsStore, ToolSettings
from echo_desk.tools import Tool

if TYPE_CHECKING:
    from echo_desk.mcp.owner import ToolOwner
    from echo_desk.tools.planted import Planted


class RegistryLike(Protocol):
    """The part of ``echo_desk.agent.registry.ToolRegistry`` the manager uses."""

    def register(self, tool: Tool, source: str = ..., *, offloaded: bool = ..., replace: bool = ...) -> Any: ...

    def unregister(self, name: str) -> Any: ...

    def get(self, name: str) -> Any: ...


@dataclass
class ServerRecord:
    """Everything the manager knows about one configured server."""

    config: ServerConfig
    state: ServerState = ServerState.STOPPED
    detail: str = ""
    conn: ServerConnection | None = None
    tools: dict[str, BuiltTool] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stderr: tuple[str, ...] = ()
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: OAuth: the server's last challenge, scopes it asked for beyond the sign-in's, who we are signed in with.
    challenge: Challenge | None = None
    extra_scope: str | None = None
    sign_in: SignInSummary | None = None
    #: Lists the tools again after ``list_changed``, one listing at a time (made on the first).
    relisting: Coalesced | None = None
    #: A connection let go of when it was lost, whose check after its end may still be to come.
    ended: ServerConnection | None = None
    #: What the checks after its ends put aside, for the next call's result to say.
    left: list[Planted] = field(default_factory=list)
    #: Those of ``left`` (and of what a call is saying) already in the audit log as the server's
    #: own row, written as it stopped (``McpManager.record_left``): no call's row says them again.
    recorded: set[Planted] = field(default_factory=set)


class ToolRegistration:
    """Puts a server's tools into the registry and takes them out again."""

    def __init__(self, manager: ToolOwner, registry: RegistryLike | None, store: SettingsStore) -> None:
        self._manager = manager
        self.registry = registry
        self._store = store
        self._pins = PinStore()

    def install(self, records: dict[str, ServerRecord], name: str, listed: list[types.Tool]) -> str:
        """Register ``name``'s tools (all or none); returns an error detail, empty on success.

        Unchanged tools stay registered as they are, so a call dispatched during a re-list
        never finds its tool missing.
        """
        srv = records[name]
        taken = {n for other, s in records.items() if other != name for n in s.tools}
        if self.registry is not None:
            taken |= {n for n in _registry_names(self.registry) if n not in srv.tools}
        built, problems = build_tools(self._manager, srv.config, listed, self._store.current, self._pins, taken)
        srv.problems = problems
        if problems:
            self.uninstall(srv)
            return N_("the server's tool list cannot be used; no tool was added")
        old = srv.tools
        same = {
            item.tool.name
            for item in built
            if item.tool.name in old and old[item.tool.name].tool.definition_hash == item.tool.definition_hash
        }
        final = {item.tool.name: (old[item.tool.name] if item.tool.name in same else item) for item in built}
        if self.registry is not None:
            for stale in set(old) - set(final):
                self.registry.unregister(stale)
            for tool_name, item in final.items():
                if tool_name in same:
                    continue
                # MCPTool only posts the call to the manager's own thread: no worker hop needed.
                # A changed tool takes its old place in one step (never absent for a moment).
                result = self.registry.register(item.tool, source=f"mcp:{name}", offloaded=True,
                                                replace=tool_name in old)
                if not getattr(result, "ok", True):
                    srv.tools = final
                    self.uninstall(srv)
                    srv.problems = [f"tool {item.tool.original_name!r}: {getattr(result, 'message', result)}"]
                    return N_("the registry refused a tool; no tool was added")
        srv.tools = final
        self._pin([item for item in built if item.new_pin or item.claim or item.carried_pin])
        return ""

    def uninstall(self, srv: ServerRecord) -> None:
        if self.registry is not None:
            for tool_name in srv.tools:
                self.registry.unregister(tool_name)
        srv.tools = {}

    def _pin(self, items: list[BuiltTool]) -> None:
        """Trust on first approval: the definitions seen when the person let the server start.

        Also claims each tool's settings entry for its identity; an entry another tool left
        under the same registry name (its policy, "Always allow" included) is replaced."""
        if not items:
            return

        def entry(s: Settings, item: BuiltTool) -> ToolSettings:
            current = ToolSettings() if item.foreign_settings else s.tool(item.tool.name)
            return current.model_copy(update={"owner": item.identity, "pinned_hash": None})

        def pinned(item: BuiltTool) -> str:
            return item.tool.definition_hash if item.new_pin else item.carried_pin or item.tool.definition_hash

        def change(s: Settings) -> None:
            s.tools = {**s.tools, **{item.tool.name: entry(s, item) for item in items}}
            s.mcp_pins = {**s.mcp_pins, **{item.pin: pinned(item) for item in items
                                           if item.new_pin or item.carried_pin}}

        for item in items:
            if item.new_pin:
                self._pins.put(item.pin, item.definition)
            elif item.carried_pin and self._pins.get(item.pin) is None and self._pins.get(item.tool.name):
                self._pins.put(item.pin, self._pins.get(item.tool.name) or {})
        self._store.update(change)

    def approve_change(self, srv: ServerRecord, registry_name: str) -> bool:
        """Pin a changed tool's current definition; it is offered again."""
        built = srv.tools.get(registry_name)
        if built is None:
            return False
        self._pins.put(built.pin, built.definition)

        def change(s: Settings) -> None:
            s.mcp_pins = {**s.mcp_pins, built.pin: built.tool.definition_hash}
            s.tools = {**s.tools, registry_name: s.tool(registry_name).model_copy(
                update={"owner": built.identity, "pinned_hash": None})}

        self._store.update(change)
        built.changes = []
        return True


def readiness(srv: ServerRecord | None, registry_name: str) -> str:
    """Why a tool cannot be offered now; empty when it can. The model reads it in English (a
    call's failure, the schema's note); the catalog's status column shows it to the person in the
    language of the moment (``for_person``, read with ``shown``)."""
    if srv is None:
        return for_person("the MCP server is no longer configured",
                          N_("its MCP server is no longer in your settings"))
    built = srv.tools.get(registry_name)
    if built is not None and built.changes:
        return for_person("the server changed this tool since you approved it: "
                          + "; ".join(for_model(c) for c in built.changes),
                          N_("the server changed this tool since you approved it: {changes}"),
                          changes=tuple(built.changes))
    if srv.state is ServerState.DISABLED:
        return for_person(f"MCP server {srv.config.name!r}: {srv.state.value}",
                          N_("the MCP server “{server}” is switched off"), server=srv.config.name)
    if srv.state is ServerState.AWAITING_APPROVAL:
        return for_person(f"MCP server {srv.config.name!r}: {srv.state.value}",
                          N_("the MCP server “{server}” is waiting for your approval to start"), server=srv.config.name)
    return ""


def tool_info(srv: ServerRecord, built: BuiltTool, warnings: tuple[IntegrityWarning, ...] = ()) -> McpToolInfo:
    """One tool as the catalog shows it, with its flags (hidden characters, changes, hints, and
    the integrity warnings found across every server: ``integrity.tool_warnings``)."""
    tool = built.tool
    flags = [ToolFlag(kind=FlagKind.WARNING, detail=w.detail) for w in warnings if w.kind is not WarningKind.HIDDEN_TEXT]
    if tool.hidden_characters:
        shown = ", ".join(sorted(set(tool.hidden_characters))[:8])
        flags.append(ToolFlag(kind=FlagKind.HIDDEN_CHARS, detail=deferred(N_("hidden characters removed: {chars}"), chars=shown)))
    flags.extend(ToolFlag(kind=FlagKind.CHANGED, detail=change) for change in built.changes)
    hints = {k: v for k, v in tool.annotations.items() if k.endswith("Hint")}
    if hints:
        flags.append(ToolFlag(kind=FlagKind.ANNOTATION, detail=", ".join(f"{k}={v}" for k, v in sorted(hints.items()))))
    detail = readiness(srv, tool.name)
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


def _registry_names(registry: RegistryLike) -> list[str]:
    entries = getattr(registry, "entries", None)
    if entries is None:
        return []
    return [getattr(entry, "tool", entry).name for entry in entries()]
