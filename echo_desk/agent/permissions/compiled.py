"""A rule (or grant) with its pattern compiled for its family, and the family of a ``tool`` value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from echo_desk.agent.permissions import matchers
from echo_desk.agent.permissions.model import Family, Grant, Rule
from echo_desk.agent.permissions.subjects import FETCH_TOOLS, READ_TOOLS, SHELL_TOOLS, WRITE_TOOLS
from echo_desk.agent.permissions.tokens import PatternError, compile_tokens

_FAMILY_NAMES = {"shell": Family.SHELL, "read": Family.READ, "write": Family.WRITE, "fetch": Family.FETCH}


def family_of(tool: str) -> Family:
    """The family whose grammar a rule for ``tool`` uses; ``ValueError`` for a malformed name."""
    if tool in _FAMILY_NAMES:
        return _FAMILY_NAMES[tool]
    if tool.startswith("mcp:"):
        server = tool[4:].split("/", 1)[0]
        if not server or tool.count("/") > 1 or tool.endswith("/"):
            raise ValueError(f"tool {tool!r}: write mcp:<server> or mcp:<server>/<tool>")
        return Family.MCP
    if tool.startswith("db:"):
        if not tool[3:]:
            raise ValueError(f"tool {tool!r}: write db:<connection name>")
        return Family.DB
    if tool in SHELL_TOOLS:
        return Family.SHELL
    if tool in READ_TOOLS:
        return Family.READ
    if tool in WRITE_TOOLS:
        return Family.WRITE
    if tool in FETCH_TOOLS:
        return Family.FETCH
    if not tool or not all(c.isalnum() or c in "_-.:" for c in tool):
        raise ValueError(f"tool {tool!r} is not a family (shell, read, write, fetch, mcp:…, db:…) or a tool name")
    return Family.TOOL


def compile_pattern(family: Family, pattern: str | None) -> Any:
    """The compiled matcher for ``pattern`` (``None`` = the whole tool); ``PatternError`` if bad."""
    if pattern is None:
        return None
    if not pattern.strip():
        raise PatternError("the pattern is empty (omit 'pattern' to mean the whole tool)")
    if family is Family.SHELL:
        return compile_tokens(pattern)
    if family in (Family.READ, Family.WRITE):
        return matchers.compile_path(pattern)
    if family is Family.FETCH:
        return matchers.compile_fetch(pattern)
    if family is Family.MCP:
        return matchers.compile_fields(pattern)
    if family is Family.DB:
        return matchers.compile_classes(pattern)
    raise PatternError("this tool takes no pattern (a rule for a tool by name covers every call)")


@dataclass(frozen=True)
class Compiled:
    """A rule or a grant, ready to match. Exactly one of ``rule`` / ``grant`` is set."""

    tool: str
    family: Family
    matcher: Any
    rule: Rule | None = None
    grant: Grant | None = None
