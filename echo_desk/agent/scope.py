"""Scopes: who is calling (a conversation, a sub-agent) and what it was granted."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.tools.context import ToolExecutionContext
from echo_desk.tools.results import RiskLevel

#: How much of a sub-agent's goal its label holds (the audit's scope chain, the dialog).
GOAL_IN_LABEL = 60


@dataclass(frozen=True)
class ScopeLink:
    """One scope of a chain as the person is shown it: its label and, for a sub-agent, the goal
    its label names ('' for a conversation's own scope)."""

    label: str
    subagent_goal: str = ""


def subagent_label(goal: str) -> str:
    """A sub-agent scope's label (English: the audit log keeps it)."""
    return f"sub-agent: {goal[:GOAL_IN_LABEL]}"


@dataclass
class Scope:
    """A conversation or sub-agent.

    ``granted_tools`` is ``None`` for a conversation (every enabled tool) and an explicit set
    for a sub-agent. ``session_grants`` holds tools the person allowed "for this
    conversation". Roots are resolved absolute paths; a read-only scope has no write roots
    and gets no write/exec tools.
    """

    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    label: str = ""
    conversation_id: str = ""
    parent: Scope | None = None
    workspace_roots: tuple[Path, ...] = ()
    write_roots: tuple[Path, ...] | None = None
    read_only: bool = False
    granted_tools: frozenset[str] | None = None
    risk_ceiling: RiskLevel = RiskLevel.EXEC
    session_grants: set[str] = field(default_factory=set)
    hidden: dict[str, str] = field(default_factory=dict)
    #: Turns this scope may still take, and when it must stop (``time.monotonic``); a
    #: sub-agent's limits can never exceed what remains to its parent.
    turns_left: int | None = None
    deadline: float | None = None
    #: Why the scope exists, shown with every approval it asks for (a sub-agent's goal).
    goal: str = ""
    #: The ``delegate`` calls, outermost first, that started this sub-agent and those above it
    #: (() for a conversation's scope): its calls' steps are kept in their saved transcripts.
    delegate_calls: tuple[str, ...] = ()
    #: The MCP client calling through the gateway (its key, ``echo_desk.gateway.clients``);
    #: empty for Echo Desk's own chat and CLI. Read it at the root (``caller``).
    client: str = ""
    #: Works ``granted_tools`` out again from what decides it now (a gateway client's profile,
    #: which the person may change while a dialog of that client is open); ``None``: it is fixed.
    regrant: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.workspace_roots = tuple(Path(p).resolve() for p in self.workspace_roots)
        if self.write_roots is None:
            self.write_roots = () if self.read_only else self.workspace_roots
        else:
            self.write_roots = tuple(Path(p).resolve() for p in self.write_roots)
        if self.read_only:
            self.write_roots = ()
            if self.risk_ceiling.rank > RiskLevel.READ.rank:
                self.risk_ceiling = RiskLevel.READ
        if not self.conversation_id:
            self.conversation_id = self.parent.conversation_id if self.parent else self.id

    def grant_again(self) -> None:
        """Bring ``granted_tools`` of this scope and those above it up to date (``regrant``)."""
        scope: Scope | None = self
        while scope is not None:
            if scope.regrant is not None:
                scope.regrant()
            scope = scope.parent

    def grants(self, tool_name: str, risk: RiskLevel) -> bool:
        """Whether this scope (and every scope above it) lets ``tool_name`` run at all."""
        scope: Scope | None = self
        while scope is not None:
            if scope.granted_tools is not None and tool_name not in scope.granted_tools:
                return False
            if risk.rank > scope.risk_ceiling.rank:
                return False
            scope = scope.parent
        return True

    @property
    def depth(self) -> int:
        return 0 if self.parent is None else self.parent.depth + 1

    @property
    def chain(self) -> tuple[str, ...]:
        """Labels from the conversation down to this scope, for the audit and the dialog."""
        names: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            names.append(scope.label or scope.id)
            scope = scope.parent
        return tuple(reversed(names))

    @property
    def links(self) -> tuple[ScopeLink, ...]:
        """``chain`` as typed links: which of them is a sub-agent, and its goal."""
        found: list[ScopeLink] = []
        scope: Scope | None = self
        while scope is not None:
            found.append(ScopeLink(scope.label or scope.id, scope.goal[:GOAL_IN_LABEL]))
            scope = scope.parent
        return tuple(reversed(found))

    def conversation_allows(self, tool_name: str) -> bool:
        """Whether the person said "allow for this conversation" for this tool (at the root)."""
        return tool_name in self.root().session_grants

    @property
    def caller(self) -> str:
        """The MCP client this scope's calls come from ('' for Echo Desk's own agent)."""
        return self.root().client

    def root(self) -> Scope:
        """The conversation's scope at the top of this one's chain."""
        root: Scope = self
        while root.parent is not None:
            root = root.parent
        return root


@dataclass(kw_only=True)
class ScopedContext(ToolExecutionContext):
    """The context of a call the engine runs: the public one plus the caller's ``Scope``.

    For the engine's own tools (``delegate`` starts a sub-agent inside it); a plugin sees and
    needs only the public fields.
    """

    scope: Scope
