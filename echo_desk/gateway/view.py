"""What one client sees: its profile (``Settings.gateway.clients[name]``) over the catalog.

A client is granted the MCP servers' tools, and Echo Desk's own tools only when the person
switched them on for it; the catalog's switches, pins ("changed tool, re-approve"), readiness and
the circuit breaker then filter the list as they do for the chat (``SchemaFactory``), and the
dispatcher refuses anything else by the same rules, whatever the client calls.

Names are the registry's: ``server__tool`` for an MCP tool (provider-safe, at most 64
characters; a name that would collide or be too long becomes ``<prefix>_<8 hex of sha256(server,
tool)>``), the tool's own name for a built-in. They depend only on the server's configured name
and the tool's own name, so they stay the same across restarts.
"""

from __future__ import annotations

import enum
import time
from typing import Any

from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.schema import SchemaFactory, definition_of
from echo_desk.agent.scope import Scope
from echo_desk.store.settings import GatewayClient, Settings, SettingsStore
from echo_desk.tools.results import RiskLevel

#: Echo Desk's own tools that only make sense inside its chat (its task list, a question in its
#: window, a sub-agent of its model): never offered to another client.
CHAT_ONLY = frozenset({"ask_user", "update_todos", "delegate"})
#: The built-in that writes to a database; offered only with ``database_writes``.
DATABASE_WRITE = "db_execute"
OWN_SOURCES = ("builtin", "plugin")


class NotOffered(enum.StrEnum):
    """Why a client's profile keeps a tool from it (the catalog's per-client column says which)."""

    HIDDEN = "hidden"  # the person switched it off for this client
    BUILTINS_OFF = "builtins_off"  # Echo Desk's own tools are off for this client
    CHAT_ONLY = "chat_only"  # only meaningful in Echo Desk's own chat
    DATABASE_WRITES_OFF = "database_writes_off"  # the database tools are read-only for this client


def not_offered(name: str, source: str, profile: GatewayClient) -> NotOffered | None:
    """Why ``profile`` keeps the tool ``name`` (of ``source``) from its client; ``None``: it does not."""
    if source.startswith("mcp:"):
        return NotOffered.HIDDEN if name in profile.hidden_tools else None
    if source not in OWN_SOURCES or name in CHAT_ONLY:
        return NotOffered.CHAT_ONLY
    if not profile.builtins:
        return NotOffered.BUILTINS_OFF
    if name == DATABASE_WRITE and not profile.database_writes:
        return NotOffered.DATABASE_WRITES_OFF
    return NotOffered.HIDDEN if name in profile.hidden_tools else None


def offered(entry: RegisteredTool, profile: GatewayClient) -> bool:
    """Whether ``profile`` lets its client see ``entry`` at all (before the catalog's switches)."""
    return not_offered(entry.name, entry.source, profile) is None


def granted(registry: ToolRegistry, settings: Settings, client: str) -> frozenset[str]:
    """The tools ``client``'s scope is granted, now."""
    profile = settings.gateway.client(client)
    return frozenset(e.name for e in registry.entries() if offered(e, profile))


def mcp_tool(entry: RegisteredTool) -> dict[str, Any]:
    """The ``tools/list`` entry of one tool (hidden parameters left out, as for a model)."""
    tool = entry.tool
    definition = definition_of(entry)
    found: dict[str, Any] = {"name": definition.name, "description": definition.description,
                             "inputSchema": definition.parameters}
    annotations = getattr(tool, "annotations", None)
    if isinstance(annotations, dict) and annotations:
        # An MCP server's own hints, cleaned (they never lower an approval here either).
        found["annotations"] = {k: v for k, v in annotations.items() if k != "title"}
    elif entry.source in OWN_SOURCES:
        found["annotations"] = {"readOnlyHint": tool.risk_level is RiskLevel.READ}
    title = getattr(tool, "title", "") or ""
    if isinstance(title, str) and title and title != definition.name:
        found["title"] = title
    return found


def listing(schema: SchemaFactory, registry: ToolRegistry, scope: Scope) -> list[dict[str, Any]]:
    """What ``tools/list`` answers for the client of ``scope`` (its grants refreshed first)."""
    scope.granted_tools = granted(registry, schema.settings.current, scope.client)
    visible = {a.name for a in schema.availability(scope) if a.visible}
    return [mcp_tool(e) for e in registry.entries() if e.name in visible]


def ensure_profile(settings: SettingsStore, client: str) -> GatewayClient:
    """The client's profile, made with the safe defaults on its first connection."""
    current = settings.current.gateway.clients.get(client)
    if current is not None:
        return current

    def add(s: Settings) -> None:
        if client not in s.gateway.clients:
            s.gateway.clients = {**s.gateway.clients, client: GatewayClient(first_seen=time.time())}

    return settings.update(add).gateway.client(client)


def set_offered(settings: SettingsStore, client: str, name: str, on: bool) -> None:
    """Show or hide one tool to ``client`` (``db_execute`` also switches its database writes)."""

    def change(s: Settings) -> None:
        profile = s.gateway.client(client).model_copy(deep=True)
        profile.hidden_tools = [n for n in profile.hidden_tools if n != name] + ([] if on else [name])
        if name == DATABASE_WRITE:
            profile.database_writes = on
        s.gateway.clients = {**s.gateway.clients, client: profile}

    settings.update(change)


def set_builtins(settings: SettingsStore, client: str, on: bool) -> None:
    """Offer Echo Desk's own tools to ``client`` (or stop)."""

    def change(s: Settings) -> None:
        profile = s.gateway.client(client).model_copy(update={"builtins": on})
        s.gateway.clients = {**s.gateway.clients, client: profile}

    settings.update(change)
