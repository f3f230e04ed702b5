"""A rule (or grant) with its pattern compiled for its family, and the family of a ``tool`` value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from echo_desk.agent.permissions import matchers
from echo_desk.agent.permissions.model import Family, Grant, Rule
from echo_desk.agent.permissions.tokens import PatternError, compile_tokens
from echo_desk.i18n import N_, for_person

_FAMILY_NAMES = {"shell": Family.SHELL, "read": Family.READ, "write": Family.WRITE, "fetch": Family.FETCH}

#: The grammar of a rule naming a registered tool (its declared family); ``None``: no such tool.
NamedGrammar = Callable[[str], Family | None]


def family_of(tool: str, named: NamedGrammar | None = None) -> Family:
    """The family whose grammar a rule for ``tool`` uses; ``ValueError`` for a malformed name.
    A tool's own name takes its declared family's grammar (``named``, from the registry); a name
    no registered tool has is a plain tool rule (no pattern)."""
    if tool in _FAMILY_NAMES:
        return _FAMILY_NAMES[tool]
    if tool.startswith("mcp:"):
        server = tool[4:].split("/", 1)[0]
        if not server or tool.count("/") > 1 or tool.endswith("/"):
            raise ValueError(for_person(f"tool {tool!r}: write mcp:<server> or mcp:<server>/<tool>",
                                        N_("tool “{tool}”: write mcp:<server> or mcp:<server>/<tool>"), tool=tool))
        return Family.MCP
    if tool.startswith("db:"):
        if not tool[3:]:
            raise ValueError(for_person(f"tool {tool!r}: write db:<connection name>",
                                        N_("tool “{tool}”: write db:<connection name>"), tool=tool))
        return Family.DB
    if not tool or not all(c.isalnum() or c in "_-.:" for c in tool):
        raise ValueError(for_person(
            f"tool {tool!r} is not a family (shell, read, write, fetch, mcp:…, db:…) or a tool name",
            N_("tool “{tool}” is neither a family (shell, read, write, fetch, mcp:…, db:…) nor a tool's name"),
            tool=tool))
    declared = named(tool) if named is not None else None
    return declared if declared is not None and declared is not Family.MCP else Family.TOOL


def compile_pattern(family: Family, pattern: str | None) -> Any:
    """The compiled matcher for ``pattern`` (``None`` = the whole tool); ``PatternError`` if bad."""
    if pattern is None:
        return None
    if not pattern.strip():
        raise PatternError(for_person("the pattern is empty (omit 'pattern' to mean the whole tool)",
                                      N_("the pattern is empty (leave pattern out to mean the whole tool)")))
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
    raise PatternError(for_person("this tool takes no pattern (a rule for a tool by name covers every call)",
                                  N_("this tool takes no pattern (a rule for a tool by name covers every call)")))


@dataclass(frozen=True)
class Compiled:
    """A rule or a grant, ready to match. Exactly one of ``rule`` / ``grant`` is set."""

    tool: str
    family: Family
    matcher: Any
    rule: Rule | None = None
    grant: Grant | None = None
