"""What a tool card shows of a call's result, as typed values (read once by ``card_parse``).

The cards render from these and never look into a dict. A part that does not read as what
Echo Desk wrote is an ``Unreadable`` part: the card says it could not show it and keeps its raw
JSON (Copy gives it whole).

No Qt here.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import N_

if TYPE_CHECKING:
    from echo_desk.tools.planted import Planted
    from echo_desk.tools.results import FileChange, JsonObject

#: A grid cell as kept for the card: scalars as they are, anything else as (cut) text.
Cell = bool | int | float | str | None


class Part(enum.StrEnum):
    """Which part of a result could not be read (the card names it)."""

    RESULT = "result"
    FILE_CHANGE = "file_change"
    SUB_TRANSCRIPT = "sub_transcript"
    GRID = "grid"
    SANDBOX = "sandbox"


#: How the card names each part (translated where shown).
PART_LABELS = {
    Part.RESULT: N_("this result"),
    Part.FILE_CHANGE: N_("a file change"),
    Part.SUB_TRANSCRIPT: N_("the sub-agent's transcript"),
    Part.GRID: N_("the result table"),
    Part.SANDBOX: N_("where the command ran"),
}


@dataclass(frozen=True)
class Unreadable:
    """A part of a result that does not read as Echo Desk wrote it; ``raw`` is its JSON, whole."""

    part: Part
    raw: str

    @classmethod
    def of(cls, part: Part, value: object) -> Unreadable:
        return cls(part, json_text(value))


@dataclass(frozen=True)
class GridColumn:
    name: str
    type: str = ""


@dataclass(frozen=True, kw_only=True)
class GridFacts:
    """A database result table as the card shows it: a bounded number of rows, long cells cut."""

    connection: str = ""
    columns: tuple[GridColumn, ...]
    rows: tuple[tuple[Cell, ...], ...]
    #: Rows the tool returned (not all of them kept here) and rows past the tool's own cap.
    row_count: int
    more_rows: int = 0
    more_rows_exact: bool = True
    status: str = ""

    def to_json(self) -> JsonObject:
        """As stored with the message (``grid_of`` reads it back alike)."""
        return {"connection": self.connection, "columns": [{"name": c.name, "type": c.type} for c in self.columns],
                "rows": [list(r) for r in self.rows], "row_count": self.row_count, "more_rows": self.more_rows,
                "more_rows_exact": self.more_rows_exact, "status": self.status}


@dataclass(frozen=True, kw_only=True)
class SandboxFacts:
    """Where a command ran, with what network, and what the sandbox refused or put aside."""

    sandboxed: bool
    domains: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    refused_hosts: tuple[str, ...] = ()
    #: Refused hosts past the cap kept with the conversation: counted, not named.
    refused_more: int = 0
    mode: str = ""
    status: str = ""
    planted: tuple[Planted, ...] = ()
    #: Planted entries past the cap kept with the conversation (``tools.sandbox_kept``): counted, not named.
    planted_more: int = 0
    search_cut: bool = False
    #: The folders checked when ``search_cut`` (0: the bound was not stored, ``repositories.MAX_FOLDERS``).
    folders_checked: int = 0
    #: Processes of the sandbox still ran when the command ended: what they left is checked later.
    checked_later: bool = False
    #: Echo Desk was closed before it checked what the command left: checked at its next start.
    checked_after_restart: bool = False
    #: ... but that check could not be made: why (a ``sandbox.owed_failure.OwedFailure`` value).
    not_checked_after_restart: str = ""
    #: A sandboxed MCP server's call (checked after it), not a command.
    server: bool = False

    def to_json(self) -> JsonObject:
        """As stored with the message (``sandbox_of`` reads it back alike)."""
        return {"sandboxed": self.sandboxed, "domains": list(self.domains), "blocked": list(self.blocked),
                "refused_hosts": list(self.refused_hosts), "refused_more": self.refused_more, "mode": self.mode, "status": self.status,
                "planted": [p.to_json() for p in self.planted], "planted_more": self.planted_more,
                "search_cut": self.search_cut, "folders_checked": self.folders_checked,
                "checked_later": self.checked_later, "server": self.server,
                "checked_after_restart": self.checked_after_restart,
                **({"not_checked_after_restart": self.not_checked_after_restart}
                   if self.not_checked_after_restart else {})}

    @property
    def planted_count(self) -> int:
        """How many entries were planted, those past the cap included."""
        return len(self.planted) + self.planted_more


@dataclass(frozen=True, kw_only=True)
class SubResult:
    """What a sub-agent's call returned (from its envelope)."""

    ok: bool
    error_kind: str = ""
    content: str = ""
    error: str = ""
    #: Its sandbox's facts (what it planted, a check still to come), as its own card has them.
    sandbox: SandboxFacts | None = None
    #: A ``delegate`` call's: the transcript of the sub-agent it started (a sub-agent's sub-agent).
    subtranscript: SubTranscript | None = None


@dataclass(frozen=True, kw_only=True)
class SubCall:
    """A call the sub-agent made, with its result once known."""

    call_id: str
    tool: str
    arguments: str = ""
    result: SubResult | None = None

    @property
    def status(self) -> ToolStatus:
        if self.result is None:
            return ToolStatus.CANCELLED  # the transcript ended without this call's result
        return ToolStatus.of_result(self.result.ok, self.result.error_kind)


@dataclass(frozen=True)
class SubText:
    """The sub-agent's own words."""

    text: str


SubStep = SubCall | SubText


@dataclass(frozen=True)
class SubTranscript:
    """A ``delegate`` card's sub-agent transcript: its calls paired with their results, in order."""

    steps: tuple[SubStep, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.steps)

    @property
    def call_ids(self) -> tuple[str, ...]:
        return tuple(s.call_id for s in self.steps if isinstance(s, SubCall) and s.call_id)

    @property
    def sandboxes(self) -> tuple[SandboxFacts, ...]:
        """The sandbox facts of the sub-agent's calls that have them, in order, those of the
        sub-agents it started (nested in their steps) with them."""
        found: list[SandboxFacts] = []
        for step in self.steps:
            if isinstance(step, SubCall) and step.result is not None:
                if step.result.sandbox is not None:
                    found.append(step.result.sandbox)
                if step.result.subtranscript is not None:
                    found += step.result.subtranscript.sandboxes
        return tuple(found)

    @property
    def planted_count(self) -> int:
        """How many entries the sub-agent's calls planted, all of them (the header's mark)."""
        return sum(facts.planted_count for facts in self.sandboxes)


@dataclass(frozen=True, kw_only=True)
class ResultFacts:
    """Everything a tool card shows of a call's result."""

    ok: bool
    content: str = ""
    error: str = ""
    error_kind: str = ""
    file_changes: tuple[FileChange, ...] = ()
    subtranscript: SubTranscript = field(default_factory=SubTranscript)
    grid: GridFacts | None = None
    sandbox: SandboxFacts | None = None
    #: The person denied the call: their note to the agent ("" for none); ``None`` otherwise.
    denied_note: str | None = None
    #: The change log could not take the call's file changes: why, in the person's language
    #: (Revert cannot find them); ``None`` when they were recorded.
    not_recorded: str | None = None
    unreadable: tuple[Unreadable, ...] = ()

    @property
    def status(self) -> ToolStatus:
        return ToolStatus.of_result(self.ok, self.error_kind)


def json_text(value: object, *, compact: bool = False) -> str:
    """``value`` as JSON text, whole (a value that is not JSON, from a plugin's metadata, as its text)."""
    separators = (",", ":") if compact else None
    try:
        return json.dumps(value, ensure_ascii=False, separators=separators, default=str)
    except (ValueError, RecursionError):  # a circular or very deep value from a plugin's metadata
        return repr(value)
