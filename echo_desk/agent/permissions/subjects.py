"""What a call is about, in the rules' terms: which rule ``tool`` names mention a tool, and the
facts a rule is matched against (the command line, the paths, the URL, the MCP call, the SQL
class), taken from the tool's validated arguments.

Built-in tools are mapped by name; MCP tools by their ``mcp:<server>`` source; every other tool
is matched by its own name only (a rule ``tool = "<name>"`` without pattern).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from echo_desk.agent.permissions.model import Family
from echo_desk.agent.registry import RegisteredTool

SHELL_TOOLS = frozenset({"run_command"})
READ_TOOLS = frozenset({"read_file", "list_dir", "search_files"})
WRITE_TOOLS = frozenset({"write_file", "edit_file", "append_to_file"})
FETCH_TOOLS = frozenset({"fetch_url"})
DB_TOOLS = {"db_query": "read", "db_schema": "read", "db_execute": "write"}
_SCHEMA_WORDS = ("create", "alter", "drop", "truncate", "rename", "comment")


@dataclass(frozen=True, kw_only=True)
class Subject:
    """The facts of one call that rules match. ``names`` are the rule ``tool`` values that
    mention it (the tool's own name first)."""

    tool: str
    family: Family
    names: frozenset[str]
    command: str = ""  # SHELL
    paths: tuple[str, ...] = ()  # READ / WRITE: as given (relative to the workspace or absolute)
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


def rule_names_for(entry: RegisteredTool) -> frozenset[str]:
    """The rule ``tool`` values that mention this tool: its name, its family, its MCP server."""
    return _rule_names(entry.name, entry.source, str(getattr(entry.tool, "original_name", "") or entry.name))


@functools.lru_cache(maxsize=4096)  # asked on every call; a function of these three strings
def _rule_names(name: str, source: str, original: str) -> frozenset[str]:
    names = {name}
    if name in SHELL_TOOLS:
        names.add("shell")
    elif name in READ_TOOLS:
        names.add("read")
    elif name in WRITE_TOOLS:
        names.add("write")
    elif name in FETCH_TOOLS:
        names.add("fetch")
    elif source.startswith("mcp:"):
        server = source[4:]
        names |= {f"mcp:{server}", f"mcp:{server}/{original}"}
    return frozenset(names)


def subject_for(entry: RegisteredTool, params: Mapping[str, Any]) -> Subject:
    """The rules' view of one call with validated ``params``."""
    name = entry.name
    names = rule_names_for(entry)
    if name in SHELL_TOOLS:
        return Subject(tool=name, family=Family.SHELL, names=names, command=str(params.get("command", "")))
    if name in READ_TOOLS or name in WRITE_TOOLS:
        family = Family.READ if name in READ_TOOLS else Family.WRITE
        return Subject(tool=name, family=family, names=names, paths=(str(params.get("path", ".")),))
    if name in FETCH_TOOLS:
        return Subject(tool=name, family=Family.FETCH, names=names, url=str(params.get("url", "")),
                       method=str(params.get("method", "GET")).upper())
    if entry.source.startswith("mcp:"):
        original = str(getattr(entry.tool, "original_name", "") or name)
        return Subject(tool=name, family=Family.MCP, names=names, server=entry.source[4:],
                       mcp_tool=original, arguments=dict(params))
    if name in DB_TOOLS:
        connection = str(params.get("connection", ""))
        return Subject(tool=name, family=Family.DB, names=names | {f"db:{connection}"}, connection=connection,
                       statement_class=statement_class(name, str(params.get("sql", ""))))
    return Subject(tool=name, family=Family.TOOL, names=names)


def statement_class(tool: str, sql: str) -> str:
    """read for the read-only tools; for ``db_execute``: schema when the statement starts with a
    DDL word, else write."""
    kind = DB_TOOLS.get(tool, "write")
    if kind == "write" and sql.lstrip().lower().startswith(_SCHEMA_WORDS):
        return "schema"
    return kind
