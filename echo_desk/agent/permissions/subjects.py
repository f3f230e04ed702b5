"""What a call is about, in the rules' terms: which rule ``tool`` names mention a tool, and the
facts a rule is matched against (the command line, the paths, the URL, the MCP call, the SQL
class), taken from the tool's validated arguments.

Rules never key on a tool's name: each tool declares its family and its path arguments
(``echo_desk.tools.rules``), a built-in or a plugin's alike. An MCP tool is judged by its
``mcp:<server>`` source (a server's own words about its tools are not believed). A rule naming
a tool (``tool = "<name>"``) applies to that tool, in the grammar of its family.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from echo_desk.agent.permissions.model import Family
from echo_desk.tools import PathAccess, RiskLevel, RuleFamily, Tool, declared_family

if TYPE_CHECKING:
    from echo_desk.agent.registry import RegisteredTool

_SCHEMA_WORDS = ("create", "alter", "drop", "truncate", "rename", "comment")
_ACCESS_FAMILY = {PathAccess.READ: Family.READ, PathAccess.WRITE: Family.WRITE}


@dataclass(frozen=True)
class PathUse:
    """One path a call names: as given (relative to the workspace or absolute), the rules that
    judge it (``READ`` or ``WRITE``) and the argument it came from."""

    raw: str
    family: Family
    argument: str = ""


@dataclass(frozen=True, kw_only=True)
class Subject:
    """The facts of one call that rules match. ``names`` are the rule ``tool`` values that
    mention it (the tool's own name first). A files subject's ``family`` is ``WRITE`` when it
    writes at any of its paths, else ``READ``; each path keeps its own."""

    tool: str
    family: Family
    names: frozenset[str]
    command: str = ""  # SHELL
    paths: tuple[PathUse, ...] = ()  # READ / WRITE
    url: str = ""  # FETCH
    method: str = "GET"
    server: str = ""  # MCP
    mcp_tool: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    connection: str = ""  # DB
    statement_class: str = ""  # read | write | schema
    #: The MCP client calling through the gateway ('' for Echo Desk's own agent): rules with a
    #: ``client`` condition speak only for it.
    client: str = ""


@dataclass(frozen=True)
class _Declared:
    family: RuleFamily
    accesses: frozenset[PathAccess]  # the kinds of path the tool takes
    #: The floor may speak about any call, with no rule written: a shell line or a write.
    floor_applies: bool


def _declared(tool: Tool | type[Tool]) -> _Declared:
    """What ``tool`` declares; worked out once per class (asked on every call), unless the
    object itself sets the attributes."""
    own = vars(tool) if not isinstance(tool, type) else {}
    if "rule_family" in own or "path_arguments" in own:
        return _declaration(getattr(tool, "rule_family", None), dict(getattr(tool, "path_arguments", {})))
    return _declared_class(tool if isinstance(tool, type) else type(tool))


_BY_CLASS: dict[type[Tool], _Declared] = {}


def _declared_class(cls: type[Tool]) -> _Declared:
    found = _BY_CLASS.get(cls)
    if found is None:
        found = _BY_CLASS[cls] = _declaration(getattr(cls, "rule_family", None),
                                              dict(getattr(cls, "path_arguments", {})))
    return found


def _declaration(family: RuleFamily | None, paths: Mapping[str, PathAccess]) -> _Declared:
    found = declared_family(family, paths)
    accesses = frozenset(paths.values())
    floor_applies = found is RuleFamily.SHELL or (found is RuleFamily.FILES and PathAccess.WRITE in accesses)
    return _Declared(family=found, accesses=accesses, floor_applies=floor_applies)


def family_of_tool(tool: Tool | type[Tool]) -> RuleFamily:
    """The tool's declared family (files when it declares path arguments, else named)."""
    return _declared(tool).family


def grammar_of(tool: Tool | type[Tool]) -> Family:
    """The grammar of a rule that names ``tool``: its family's (a files tool's paths are globs:
    ``WRITE`` when it writes anywhere, else ``READ``)."""
    declared = _declared(tool)
    family = declared.family
    if family is RuleFamily.FILES:
        return Family.WRITE if PathAccess.WRITE in declared.accesses else Family.READ
    return {RuleFamily.SHELL: Family.SHELL, RuleFamily.FETCH: Family.FETCH,
            RuleFamily.DATABASE: Family.DB}.get(family, Family.TOOL)


def registered_grammar(lookup: Callable[[str], RegisteredTool | None]) -> Callable[[str], Family | None]:
    """For the engine: the grammar of a rule naming a registered tool (``None`` for no such
    tool, and for an MCP tool, whose rules are written ``mcp:<server>/<tool>``)."""
    def grammar(name: str) -> Family | None:
        entry = lookup(name)
        if entry is None or entry.source.startswith("mcp:"):
            return None
        return grammar_of(entry.tool)

    return grammar


def always_evaluated(entry: RegisteredTool) -> bool:
    """Whether the floor rules may speak about every call of this tool, with no rule written:
    a shell line (``rm -rf ~``) or a write (into Echo Desk's own settings)."""
    return _declared(entry.tool).floor_applies and not entry.source.startswith("mcp:")


def rule_names_for(entry: RegisteredTool) -> frozenset[str]:
    """The rule ``tool`` values that mention this tool: its name, its family (``read`` and/or
    ``write`` for each kind of path it takes), its MCP server."""
    tool = entry.tool
    declared = _declared(tool)
    return _rule_names(entry.name, entry.source, str(getattr(tool, "original_name", "") or entry.name),
                       declared.family, declared.accesses)


@functools.lru_cache(maxsize=4096)  # asked on every call; a function of these values
def _rule_names(name: str, source: str, original: str, family: RuleFamily,
                accesses: frozenset[PathAccess]) -> frozenset[str]:
    names = {name}
    if source.startswith("mcp:"):
        server = source[4:]
        names |= {f"mcp:{server}", f"mcp:{server}/{original}"}
    elif family is RuleFamily.SHELL:
        names.add("shell")
    elif family is RuleFamily.FETCH:
        names.add("fetch")
    elif family is RuleFamily.FILES:
        names |= {access.value for access in accesses}
    return frozenset(names)


def subject_for(entry: RegisteredTool, params: Mapping[str, Any]) -> Subject:
    """The rules' view of one call with validated ``params``."""
    name, tool = entry.name, entry.tool
    names = rule_names_for(entry)
    if entry.source.startswith("mcp:"):
        original = str(getattr(tool, "original_name", "") or name)
        return Subject(tool=name, family=Family.MCP, names=names, server=entry.source[4:],
                       mcp_tool=original, arguments=dict(params))
    family = family_of_tool(tool)
    if family is RuleFamily.SHELL:
        return Subject(tool=name, family=Family.SHELL, names=names, command=str(params.get("command", "")))
    if family is RuleFamily.FETCH:
        return Subject(tool=name, family=Family.FETCH, names=names, url=str(params.get("url", "")),
                       method=str(params.get("method", "GET")).upper())
    if family is RuleFamily.DATABASE:
        connection = str(params.get("connection", ""))
        return Subject(tool=name, family=Family.DB, names=names | {f"db:{connection}"}, connection=connection,
                       statement_class=statement_class(tool.risk_level is RiskLevel.READ, str(params.get("sql", ""))))
    if family is RuleFamily.FILES:
        paths = tuple(_path_uses(tool, params))
        written = any(p.family is Family.WRITE for p in paths) or grammar_of(tool) is Family.WRITE
        return Subject(tool=name, family=Family.WRITE if written else Family.READ, names=names, paths=paths)
    return Subject(tool=name, family=Family.TOOL, names=names)


def _path_uses(tool: Tool, params: Mapping[str, Any]) -> list[PathUse]:
    """Each declared path argument's value (its schema default when left out; every item of a
    list), with the family that judges it."""
    properties = tool.parameters.get("properties", {}) if isinstance(tool.parameters, dict) else {}
    uses: list[PathUse] = []
    for argument, access in tool.path_arguments.items():
        value = params.get(argument, properties.get(argument, {}).get("default"))
        if value is None:
            continue  # left out and no default: the tool does not use that path
        values = value if isinstance(value, list) else [value]
        uses.extend(PathUse(raw=str(v), family=_ACCESS_FAMILY[access], argument=argument) for v in values)
    return uses


def statement_class(reads: bool, sql: str) -> str:
    """read for a read-only database tool; otherwise schema when the statement starts with a
    DDL word, else write."""
    if reads:
        return "read"
    return "schema" if sql.lstrip().lower().startswith(_SCHEMA_WORDS) else "write"
