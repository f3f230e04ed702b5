"""Reading a call's result, once, into the typed card facts (``card_facts``).

A result reaches the transcript twice over a conversation's life: live, as the engine's
``Envelope`` (typed, with a free-form ``metadata`` dict from the tool), and reopened, as the JSON
stored with the message (written by ``chat_session``, read back from SQLite). Both are read here
into a ``ResultFacts``; nothing after this looks into a dict again.

What does not read as what Echo Desk wrote (a stored value changed by hand, a broken write, an
older format) becomes an ``Unreadable`` part with its raw JSON. Nothing raises, nothing is
dropped silently. Lists and cells are bounded here, so a huge value costs the card nothing.

No Qt here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from echo_desk.agent.envelope import DENIED_KEY, ERROR_FOR_PERSON_KEY, UNDO_NOT_RECORDED_KEY
from echo_desk.agent.subagents import MAX_DEPTH
from echo_desk.i18n import deferred_from_json
from echo_desk.store.not_saved import cause_text
from echo_desk.tools.planted import planted_of as planted_of
from echo_desk.tools.results import FileChange, FileChangeKind
from echo_desk.tools.sandbox_kept import (
    FOLDERS_CHECKED_KEY,
    MAX_ENTRIES,
    REFUSED_MORE_KEY,
    count_of,
    planted_more,
)
from echo_desk.ui.chat.card_facts import (
    Cell,
    GridColumn,
    GridFacts,
    Part,
    ResultFacts,
    SandboxFacts,
    SubCall,
    SubResult,
    SubStep,
    SubText,
    SubTranscript,
    Unreadable,
    json_text,
)

if TYPE_CHECKING:
    from echo_desk.agent.envelope import Envelope

#: Rows kept for the card (and stored with the conversation); the model got its own table.
MAX_ROWS = 50
#: A cell longer than this is cut with "…" (the model's text result has the value).
MAX_CELL_CHARS = 120


# -- the two ways in ---------------------------------------------------------------------------
def result_of_envelope(envelope: Envelope) -> ResultFacts:
    """A live result. The metadata is the tool's own: a key that does not read as a card's
    (another tool's ``transcript`` or ``columns``) is not the card's to show, so it is left out."""
    metadata = envelope.metadata
    transcript = metadata.get("transcript")
    sub, unreadable = subtranscript_of(transcript) if isinstance(transcript, list) else (SubTranscript(), ())
    return ResultFacts(ok=envelope.ok, content=envelope.content, error=envelope.error,
                       error_kind=envelope.error_kind.value if envelope.error_kind else "",
                       file_changes=envelope.file_changes, subtranscript=sub, grid=grid_of(metadata),
                       sandbox=sandbox_of(metadata), denied_note=denial_of(metadata),
                       not_recorded=not_recorded_of(metadata), unreadable=unreadable)


def result_of_stored(stored: object, content: str) -> ResultFacts:
    """A result stored with a tool message (``content`` is the message's text, what the model
    read). Every part was written by ``chat_session``: one that does not read back is unreadable."""
    if stored is None:
        return ResultFacts(ok=True, content=content)
    if not isinstance(stored, dict):
        # Not an envelope at all: success cannot be told, so the card does not claim it.
        return ResultFacts(ok=False, content=content, unreadable=(Unreadable.of(Part.RESULT, stored),))
    unreadable: list[Unreadable] = []
    error = deferred_from_json(_text(stored.get("error")), stored.get(ERROR_FOR_PERSON_KEY))
    ok = stored.get("ok")
    changes, bad_changes = file_changes_of(stored.get("file_changes"))
    sub, bad_steps = subtranscript_of(stored.get("transcript"))
    unreadable += bad_changes + bad_steps
    grid = sandbox = None
    if "grid" in stored:
        grid = grid_of(stored["grid"])
        if grid is None:
            unreadable.append(Unreadable.of(Part.GRID, stored["grid"]))
    if "sandbox" in stored:
        sandbox = sandbox_of(stored["sandbox"])
        if sandbox is None:
            unreadable.append(Unreadable.of(Part.SANDBOX, stored["sandbox"]))
    return ResultFacts(ok=ok if isinstance(ok, bool) else not error,
                       content=_text(stored.get("content", content)), error=error,
                       error_kind=_text(stored.get("error_kind")), file_changes=changes, subtranscript=sub,
                       grid=grid, sandbox=sandbox, denied_note=denial_of(stored), not_recorded=not_recorded_of(stored),
                       unreadable=tuple(unreadable))


# -- each part ---------------------------------------------------------------------------------
def file_changes_of(value: object) -> tuple[tuple[FileChange, ...], tuple[Unreadable, ...]]:
    """Stored file changes (``FileChange.to_json`` each); an entry that does not read is unreadable."""
    if value is None:
        return (), ()
    if not isinstance(value, list):
        return (), (Unreadable.of(Part.FILE_CHANGE, value),)
    changes: list[FileChange] = []
    bad: list[Unreadable] = []
    for entry in value:
        change = _file_change(entry)
        if change is None:
            bad.append(Unreadable.of(Part.FILE_CHANGE, entry))
        else:
            changes.append(change)
    return tuple(changes), tuple(bad)


def _file_change(entry: object) -> FileChange | None:
    if not isinstance(entry, dict):
        return None
    path, kind, diff = entry.get("path"), entry.get("kind"), entry.get("diff", "")
    before, after = entry.get("before_sha256"), entry.get("after_sha256")
    truncated = entry.get("truncated", False)
    if not (isinstance(path, str) and path and isinstance(kind, str) and isinstance(diff, str) and isinstance(truncated, bool)
            and all(s is None or isinstance(s, str) for s in (before, after))):
        return None
    try:
        known = FileChangeKind(kind)
    except ValueError:
        return None
    return FileChange(path=path, kind=known, before_sha256=before, after_sha256=after, diff=diff, truncated=truncated)


def subtranscript_of(value: object, depth: int = 0) -> tuple[SubTranscript, tuple[Unreadable, ...]]:
    """A sub-agent transcript as ``DelegateTool`` writes it: ``{"call", "arguments", "id"}`` per
    call, ``{"result", "envelope"}`` when it returned (a ``delegate`` call's also with the
    ``"transcript"`` of the sub-agent it started, read here in turn: ``depth`` is how far down
    this one is), ``{"assistant"}`` for its own words."""
    if value is None:
        return SubTranscript(), ()
    if not isinstance(value, list):
        return SubTranscript(), (Unreadable.of(Part.SUB_TRANSCRIPT, value),)
    steps: list[SubStep] = []
    at: dict[str, int] = {}  # a call's place among the steps, by its id
    bad: list[Unreadable] = []
    for entry in value:
        if isinstance(entry, dict) and isinstance(entry.get("call"), str):
            call = SubCall(call_id=_text(entry.get("id")), tool=entry["call"], arguments=_text(entry.get("arguments")))
            at[call.call_id] = len(steps)
            steps.append(call)
        elif isinstance(entry, dict) and isinstance(entry.get("result"), str):
            result = _sub_result(entry.get("envelope"))
            index = at.get(entry["result"])
            if result is not None and "sandbox" in entry:  # (its sandbox's facts, as its own card's)
                facts = sandbox_of(entry["sandbox"])
                if facts is None:
                    bad.append(Unreadable.of(Part.SANDBOX, entry["sandbox"]))
                result = replace(result, sandbox=facts)
            if result is not None and "transcript" in entry:  # (a sub-agent's sub-agent)
                if depth + 1 >= MAX_DEPTH:  # deeper than Echo Desk lets sub-agents nest: not its own
                    bad.append(Unreadable.of(Part.SUB_TRANSCRIPT, entry["transcript"]))
                else:
                    nested, bad_nested = subtranscript_of(entry["transcript"], depth + 1)
                    bad += bad_nested
                    result = replace(result, subtranscript=nested)
            if result is None:
                bad.append(Unreadable.of(Part.SUB_TRANSCRIPT, entry))
            elif index is not None and isinstance(found := steps[index], SubCall):
                steps[index] = replace(found, result=result)
            # (a result for no call shown has nothing to stand under, as the live card)
        elif isinstance(entry, dict) and isinstance(entry.get("assistant"), str):
            if entry["assistant"]:
                steps.append(SubText(entry["assistant"]))
        else:
            bad.append(Unreadable.of(Part.SUB_TRANSCRIPT, entry))
    return SubTranscript(tuple(steps)), tuple(bad)


def _sub_result(envelope: object) -> SubResult | None:
    if not isinstance(envelope, dict):
        return None
    return SubResult(ok=envelope.get("ok") is True, error_kind=_text(envelope.get("error_kind")),
                     content=_text(envelope.get("content")),
                     error=deferred_from_json(_text(envelope.get("error")), envelope.get(ERROR_FOR_PERSON_KEY)))


def _cut(value: object) -> Cell:
    """A cell as kept for the card: scalars as they are, long text and structures cut."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = value if isinstance(value, str) else json_text(value, compact=True)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def grid_of(metadata: object) -> GridFacts | None:
    """The card's grid from a database envelope's metadata (or from a stored grid: the
    function is idempotent); ``None`` when there is no result table (e.g. ``3 rows affected``)."""
    if not isinstance(metadata, dict):
        return None
    columns = metadata.get("columns")
    rows = metadata.get("rows")
    if not isinstance(columns, list) or not columns or not isinstance(rows, list):
        return None
    cols = tuple(GridColumn(str(c.get("name", "")), str(c.get("type", ""))) if isinstance(c, dict)
                 else GridColumn(str(c)) for c in columns)
    kept = tuple(tuple(_cut(v) for v in row) for row in rows[:MAX_ROWS] if isinstance(row, list))
    try:
        row_count = int(metadata.get("row_count", len(rows)))
        more = int(metadata.get("more_rows", 0) or 0)
    except (TypeError, ValueError, OverflowError):  # a huge, infinite or non-numeric count
        row_count, more = len(rows), 0
    return GridFacts(connection=str(metadata.get("connection", "") or ""), columns=cols, rows=kept,
                     row_count=max(row_count, len(kept)), more_rows=max(more, 0),
                     more_rows_exact=bool(metadata.get("more_rows_exact", True)),
                     status=str(metadata.get("status", "") or ""))


def sandbox_of(metadata: object) -> SandboxFacts | None:
    """The card's sandbox facts from an envelope's metadata (or a stored copy), or ``None``."""
    if not isinstance(metadata, dict):
        return None
    facts = metadata.get("sandbox", metadata if "sandboxed" in metadata else None)
    if not isinstance(facts, dict) or not isinstance(facts.get("sandboxed"), bool):
        return None

    def strings(key: str) -> tuple[str, ...]:
        value = facts.get(key)
        return tuple(str(v) for v in value[:MAX_ENTRIES]) if isinstance(value, list) else ()

    planted = planted_of(facts.get("planted"))
    more = planted_more(facts) + max(len(planted) - MAX_ENTRIES, 0)
    return SandboxFacts(sandboxed=facts["sandboxed"], domains=strings("domains"), blocked=strings("blocked"),
                        refused_hosts=strings("refused_hosts"),
                        refused_more=(count_of(facts, REFUSED_MORE_KEY)
                                      + max(_length(facts, "refused_hosts") - MAX_ENTRIES, 0)),
                        mode=str(facts.get("mode", "")),
                        status=str(facts.get("status", "")), planted=tuple(planted[:MAX_ENTRIES]),
                        planted_more=more,
                        search_cut=facts.get("search_cut") is True,
                        folders_checked=count_of(facts, FOLDERS_CHECKED_KEY), checked_later=facts.get("checked_later") is True,
                        server=facts.get("server") is True,
                        checked_after_restart=facts.get("checked_after_restart") is True,
                        not_checked_after_restart=_text(facts.get("not_checked_after_restart")))


def _length(facts: dict[str, object], key: str) -> int:
    value = facts.get(key)
    return len(value) if isinstance(value, list) else 0


def denial_of(metadata: object) -> str | None:
    """The person's note when they denied the call (``""``: none), from an envelope's metadata or
    a stored envelope; ``None`` when the call was not denied by the person."""
    denied = metadata.get(DENIED_KEY) if isinstance(metadata, dict) else None
    if not isinstance(denied, dict):
        return None
    note = denied.get("message", "")
    return note if isinstance(note, str) else ""


def not_recorded_of(metadata: object) -> str | None:
    """Why the change log could not take the call's file changes, in the person's language, from
    an envelope's metadata or a stored envelope; ``None`` when they were recorded."""
    value = metadata.get(UNDO_NOT_RECORDED_KEY) if isinstance(metadata, dict) else None
    if not isinstance(value, dict):
        return None
    return cause_text(_text(value.get("cause")), _text(value.get("error")))


def _text(value: object) -> str:
    """A text field: as it is, ``""`` when missing, other JSON as its text (shown, not lost)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json_text(value)
