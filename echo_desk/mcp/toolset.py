"""From a server's ``tools/list`` answer to ``MCPTool``s: clean, check, name, pin.

All or nothing: if one tool cannot be represented the server registers none of them and the
problems are reported, so the agent never sees half of a server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp_types as types

from echo_desk.common.visible_text import visible
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.pins import PinStore, describe_changes
from echo_desk.mcp.sanitize import (
    MAX_DESCRIPTION_CHARS,
    MAX_TOOLS_PER_SERVER,
    canonical_definition,
    definition_hash,
    legacy_definition_hash,
    registry_name,
    schema_problems,
    strip_hidden,
    strip_hidden_deep,
)
from echo_desk.mcp.tool import MCPTool, make_tool
from echo_desk.store.settings import Settings
from echo_desk.tools import RiskLevel

if TYPE_CHECKING:
    from echo_desk.mcp.owner import ToolOwner


@dataclass
class BuiltTool:
    tool: MCPTool
    definition: dict[str, Any]
    #: Set when the definition differs from the pinned one: the tool is blocked until re-approved.
    changes: list[str] = field(default_factory=list)
    #: No pin existed: the manager pins this definition (trust on first approval of the server).
    new_pin: bool = False
    #: Where its pin is kept (``pin_key``).
    pin: str = ""
    #: A pin an older version kept per registry name, to store under ``pin`` as it is.
    carried_pin: str | None = None
    #: Which tool of which server this is (``tool_identity``): what its settings belong to.
    identity: str = ""
    #: The settings under this registry name belong to another tool: they are replaced.
    foreign_settings: bool = False
    #: The settings under this registry name are not claimed yet (or must be replaced).
    claim: bool = False


def tool_identity(cfg: ServerConfig, tool_name: str) -> str:
    """One MCP tool's identity: its server's configured name and fingerprint, and its own
    (original) name. Registry names are made provider-safe and may be shared or swapped
    (``fmt tools`` and ``fmt_tools``); settings, pins and grants follow this instead."""
    return f"mcp:{cfg.name}@{cfg.fingerprint()}/{tool_name}"


def pin_key(cfg: ServerConfig, tool_name: str) -> str:
    """Where a tool's pin is kept: the fingerprint of what its server runs (command, arguments,
    env names, URL…; not the server's name) and the tool's own name. Renaming the server keeps
    the pin; changing what it runs makes it another server, whose tools are approved afresh."""
    return f"{cfg.fingerprint()}/{tool_name}"


def _raw_annotations(tool: types.Tool) -> dict[str, Any]:
    if tool.annotations is None:
        return {}
    return dict(tool.annotations.model_dump(by_alias=True, exclude_none=True))


def _annotations(tool: types.Tool) -> dict[str, Any]:
    found: list[str] = []
    return dict(strip_hidden_deep(_raw_annotations(tool), found))


def build_tools(
    manager: ToolOwner,
    cfg: ServerConfig,
    listed: list[types.Tool],
    settings: Settings,
    pins: PinStore,
    taken: set[str],
) -> tuple[list[BuiltTool], list[str]]:
    """The tools to register for ``cfg.name``, or the problems that stop all of them."""
    problems: list[str] = []
    if len(listed) > MAX_TOOLS_PER_SERVER:
        return [], [f"the server offers {len(listed)} tools (limit {MAX_TOOLS_PER_SERVER})"]
    seen: set[str] = set()
    used = set(taken)
    built: list[BuiltTool] = []
    for remote in listed:
        raw_desc = remote.description or ""
        if not remote.name or remote.name in seen:
            problems.append(f"tool {remote.name!r}: empty or duplicate name")
            continue
        seen.add(remote.name)
        issues = schema_problems(remote.input_schema)
        if remote.output_schema is not None:
            # Untrusted too: capped like input schemas before the SDK compiles a validator from it.
            issues += [f"output schema: {issue}" for issue in schema_problems(remote.output_schema)]
        if issues:
            problems.extend(f"tool {remote.name!r}: {issue}" for issue in issues)
            continue
        hidden: list[str] = []
        clean_name, name_hits = strip_hidden(remote.name)
        hidden.extend(name_hits)
        description, desc_hits = strip_hidden(raw_desc)
        hidden.extend(desc_hits)
        if len(description) > MAX_DESCRIPTION_CHARS:
            description = description[:MAX_DESCRIPTION_CHARS] + " [description cut]"
        parameters = strip_hidden_deep(remote.input_schema, hidden)
        definition = canonical_definition(
            remote.name, raw_desc, remote.input_schema, title=remote.title,
            annotations=_raw_annotations(remote), output_schema=remote.output_schema,
        )
        digest = definition_hash(definition)
        name = registry_name(cfg.name, clean_name, used)
        used.add(name)
        annotations = _annotations(remote)
        title = remote.title or annotations.get("title") or remote.name
        identity = tool_identity(cfg, remote.name)
        entry = settings.tool(name)
        foreign = entry.owner is not None and entry.owner != identity
        key = pin_key(cfg, remote.name)
        pinned = settings.mcp_pins.get(key)
        carried = None
        if pinned is None and not foreign and entry.pinned_hash is not None:
            pinned = carried = entry.pinned_hash  # kept per registry name by an older version
        if pinned is not None and pinned != digest and pinned == legacy_definition_hash(definition):
            # Pinned by a version that did not cover title, annotations and output schema: what
            # it covered is unchanged, so the rest is pinned now as it is.
            pinned = carried = None
        changes = [] if pinned in (None, digest) else describe_changes(pins.get(key) or pins.get(name), definition)
        tool = make_tool(
            manager,
            registry_name=name,
            server=cfg.name,
            original_name=remote.name,
            description=description,
            parameters=parameters,
            # Every label names the tool by its title: a control (ESC, a C1 NEL that Qt breaks a
            # line at) or a bidi override is shown as its escape, never obeyed.
            title=visible(str(title), one_line=True),
            annotations=annotations,
            definition_hash=digest,
            hidden_characters=tuple(hidden),
            # Always exec here; the dispatcher applies the person's ToolSettings.risk_override.
            risk=RiskLevel.EXEC,
            timeout=cfg.timeout,
            output_schema=remote.output_schema,
        )
        built.append(BuiltTool(
            tool=tool, definition=definition, changes=changes, new_pin=pinned is None, identity=identity,
            foreign_settings=foreign, claim=entry.owner != identity, pin=key, carried_pin=carried,
        ))
    if problems:
        return [], problems
    return built, []
