"""Sub-agents: grants that can only narrow.

A sub-agent's scope is the intersection of its parent's scope and the manifest the model
asked for: tools (explicit, never inherited wholesale), risk ceiling, write roots (resolved,
each inside a parent write root), turn and time limits (never more than the parent has
left). Settings still apply at every depth, because every call goes through ``execute_tool``.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.agent.scope import Scope, subagent_label
from echo_desk.tools.results import RiskLevel, ToolPreview

DEFAULT_SUBAGENT_TURNS = 10
DEFAULT_SUBAGENT_SECONDS = 300.0
MAX_DEPTH = 3


@dataclass(frozen=True, kw_only=True)
class Manifest:
    goal: str
    tools: tuple[str, ...]
    read_only: bool = True
    write_roots: tuple[str, ...] = ()
    max_turns: int = DEFAULT_SUBAGENT_TURNS
    time_limit_seconds: float = DEFAULT_SUBAGENT_SECONDS


class RefusalReason(enum.StrEnum):
    """Why part of a spawn manifest was not granted (the UI translates each)."""

    OUTSIDE_PARENT_ROOTS = "outside_parent_roots"
    NO_SUCH_TOOL = "no_such_tool"
    NOT_GRANTED_TO_PARENT = "not_granted_to_parent"
    ABOVE_CEILING = "above_ceiling"
    TOO_DEEP = "too_deep"


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """One refused item of a manifest: ``subject`` is the tool name or the write root as asked."""

    reason: RefusalReason
    subject: str
    risk: RiskLevel | None = None
    ceiling: RiskLevel | None = None

    def __str__(self) -> str:  # for the model, the terminal and the log; the UI translates ``reason``
        match self.reason:
            case RefusalReason.OUTSIDE_PARENT_ROOTS:
                return f"write root {self.subject}: not inside the parent's write roots"
            case RefusalReason.NO_SUCH_TOOL:
                return f"{self.subject}: no such tool"
            case RefusalReason.NOT_GRANTED_TO_PARENT:
                return f"{self.subject}: the parent was not granted it"
            case RefusalReason.ABOVE_CEILING:
                risk = self.risk.value if self.risk else "?"
                ceiling = self.ceiling.value if self.ceiling else "?"
                return f"{self.subject}: {risk} tools exceed this sub-agent's ceiling ({ceiling})"
            case RefusalReason.TOO_DEEP:
                return f"{self.subject}: sub-agents may nest at most {MAX_DEPTH} deep"


@dataclass(frozen=True, kw_only=True)
class SpawnGrants:
    """What the person is asked to allow before a sub-agent starts: typed, for the dialog to
    render field by field (a folder name with a comma stays one folder)."""

    goal: str
    tools: tuple[str, ...]
    read_only: bool
    risk_ceiling: RiskLevel
    write_roots: tuple[Path, ...]
    max_turns: int
    time_limit_seconds: float
    refused: tuple[Refusal, ...] = ()
    #: How deep sub-agents may nest (for the "too deep" refusal's text).
    max_depth: int = MAX_DEPTH


@dataclass(frozen=True, kw_only=True)
class SpawnPreview(ToolPreview):
    """``delegate``'s preview: the targets and summary of any tool, plus the typed grants
    that the dispatcher passes on as ``ApprovalRequest.spawn``."""

    spawn: SpawnGrants | None = None


@dataclass
class Grants:
    """What a sub-agent actually gets, and what was asked for but refused (and why)."""

    tools: frozenset[str]
    read_only: bool
    risk_ceiling: RiskLevel
    write_roots: tuple[Path, ...]
    max_turns: int
    time_limit_seconds: float
    refused: list[Refusal] = field(default_factory=list)

    def describe(self) -> list[str]:
        """The grants as English lines, for the model, the terminal and the log (never parsed)."""
        lines = [
            f"tools: {', '.join(sorted(self.tools)) or '(none)'}",
            f"mode: {'read-only' if self.read_only else 'may write inside its roots'}"
            f" (risk ceiling {self.risk_ceiling.value})",
            f"write roots: {', '.join(map(str, self.write_roots)) or '(none)'}",
            f"limits: {self.max_turns} turns, {self.time_limit_seconds:.0f} s",
        ]
        return lines + [f"refused: {r}" for r in self.refused]

    def for_approval(self, goal: str) -> SpawnGrants:
        return SpawnGrants(goal=goal, tools=tuple(sorted(self.tools)), read_only=self.read_only,
                           risk_ceiling=self.risk_ceiling, write_roots=self.write_roots, max_turns=self.max_turns,
                           time_limit_seconds=self.time_limit_seconds, refused=tuple(self.refused))


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def narrow(
    parent: Scope,
    manifest: Manifest,
    *,
    tool_risks: dict[str, RiskLevel],
    now: float | None = None,
) -> Grants:
    """Intersect ``manifest`` with ``parent``. ``tool_risks`` maps each registered tool to its
    effective risk (tools unknown to the registry are refused)."""
    refused: list[Refusal] = []
    roots: list[Path] = []
    if not (manifest.read_only or parent.read_only):
        parent_roots = parent.write_roots or ()
        for raw in manifest.write_roots:
            # Resolve symlinks first: a link inside a parent root may point anywhere.
            given = Path(raw)
            if not given.is_absolute() and parent.workspace_roots:
                given = parent.workspace_roots[0] / given
            resolved = given.resolve()
            if not given.is_absolute() or not _inside(resolved, parent_roots):
                refused.append(Refusal(reason=RefusalReason.OUTSIDE_PARENT_ROOTS, subject=raw))
            else:
                roots.append(resolved)
    read_only = not roots
    ceiling = RiskLevel.READ if read_only else parent.risk_ceiling

    tools: set[str] = set()
    for name in dict.fromkeys(manifest.tools):
        risk = tool_risks.get(name)
        if risk is None:
            refused.append(Refusal(reason=RefusalReason.NO_SUCH_TOOL, subject=name))
        elif not parent.grants(name, risk) or (parent.read_only and risk is not RiskLevel.READ):
            refused.append(Refusal(reason=RefusalReason.NOT_GRANTED_TO_PARENT, subject=name))
        elif risk.rank > ceiling.rank:
            refused.append(Refusal(reason=RefusalReason.ABOVE_CEILING, subject=name, risk=risk, ceiling=ceiling))
        elif name == "delegate" and parent.depth + 1 >= MAX_DEPTH:
            refused.append(Refusal(reason=RefusalReason.TOO_DEEP, subject=name))
        else:
            tools.add(name)

    now = time.monotonic() if now is None else now
    turns = max(0, manifest.max_turns)
    if parent.turns_left is not None:
        turns = min(turns, max(0, parent.turns_left - 1))
    seconds = max(0.0, manifest.time_limit_seconds)
    if parent.deadline is not None:
        seconds = min(seconds, max(0.0, parent.deadline - now))
    return Grants(
        tools=frozenset(tools),
        read_only=read_only,
        risk_ceiling=ceiling,
        write_roots=tuple(roots),
        max_turns=turns,
        time_limit_seconds=seconds,
        refused=refused,
    )


def child_scope(parent: Scope, manifest: Manifest, grants: Grants, *, now: float | None = None,
                started_by: str = "") -> Scope:
    """The sub-agent's scope; ``started_by``: the id of the ``delegate`` call that starts it."""
    now = time.monotonic() if now is None else now
    label = subagent_label(manifest.goal)
    return Scope(
        label=label,
        goal=manifest.goal,
        parent=parent,
        workspace_roots=parent.workspace_roots,
        write_roots=grants.write_roots,
        read_only=grants.read_only,
        granted_tools=grants.tools,
        risk_ceiling=grants.risk_ceiling,
        hidden=dict(parent.hidden),
        turns_left=grants.max_turns,
        deadline=now + grants.time_limit_seconds,
        delegate_calls=(*parent.delegate_calls, started_by),
    )
