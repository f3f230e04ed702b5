"""A result is read once into typed card facts, live or stored; what does not read back is kept
raw as an unreadable part, never raised and never dropped. No Qt (runs in the Qt-blocked pass)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from echo_desk.agent.envelope import DENIED_KEY, Envelope
from echo_desk.agent.status import ToolStatus
from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.results import ErrorKind, FileChange, FileChangeKind
from echo_desk.tools.sandbox_kept import MAX_ENTRIES
from echo_desk.ui.chat.card_facts import (
    GridColumn,
    Part,
    ResultFacts,
    SandboxFacts,
    SubCall,
    SubText,
    Unreadable,
)
from echo_desk.ui.chat.card_parse import (
    MAX_CELL_CHARS,
    MAX_ROWS,
    file_changes_of,
    grid_of,
    result_of_envelope,
    result_of_stored,
    sandbox_of,
    subtranscript_of,
)
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript_item import TOOL, TranscriptItem
from echo_desk.ui.core.palette import LIGHT

CHANGE = FileChange(path="/w/notes.txt", kind=FileChangeKind.MODIFY, before_sha256="a" * 64,
                    after_sha256="b" * 64, diff="@@ -1 +1 @@\n-old\n+new\n", truncated=False)
GRID_METADATA = {"connection": "shop", "columns": [{"name": "id", "type": "integer"}, {"name": "name", "type": "text"}],
                 "rows": [[1, "apple"], [2, None]], "row_count": 2, "more_rows": 0}
SANDBOX_METADATA = {"sandbox": {"sandboxed": True, "domains": ["pypi.org"], "blocked": ["network"],
                                "refused_hosts": ["evil.example"], "mode": "sandboxed", "status": "available",
                                "planted": [Planted("x/.git/hooks", Change.CREATED, kept="/k/x").to_json()],
                                "search_cut": False}}
SUB_TRANSCRIPT = [{"call": "read_note", "arguments": '{"name": "shop"}', "id": "s1"},
                  {"result": "s1", "envelope": {"ok": True, "content": "milk, eggs", "error": "", "error_kind": ""}},
                  {"assistant": "The notes list milk and eggs."}]


def _stored(**extra: object) -> dict[str, object]:
    """What chat_session stores for a successful call, plus ``extra``."""
    envelope = Envelope(ok=True, tool="write_note", call_id="c1", content="wrote it", file_changes=(CHANGE,))
    return {**envelope.to_json(), **extra}


# -- the well-formed paths --------------------------------------------------------------------
def test_a_live_envelope_and_its_stored_copy_read_to_the_same_facts() -> None:
    metadata = {**GRID_METADATA, **SANDBOX_METADATA, "transcript": SUB_TRANSCRIPT, DENIED_KEY: {"message": "no"}}
    envelope = Envelope(ok=True, tool="t", call_id="c1", content="done", file_changes=(CHANGE,), metadata=metadata)
    live = result_of_envelope(envelope)
    stored = json.loads(json.dumps({**envelope.to_json(), "transcript": SUB_TRANSCRIPT,
                                    "grid": live.grid.to_json() if live.grid else None,
                                    "sandbox": live.sandbox.to_json() if live.sandbox else None,
                                    DENIED_KEY: {"message": "no"}}))
    reopened = result_of_stored(stored, "the model's text")
    assert reopened == live and not live.unreadable
    assert live.file_changes == (CHANGE,) and live.status is ToolStatus.DONE and live.denied_note == "no"
    assert live.grid is not None and live.grid.columns == (GridColumn("id", "integer"), GridColumn("name", "text"))
    assert live.grid.rows == ((1, "apple"), (2, None))
    assert live.sandbox is not None and live.sandbox.planted == (Planted("x/.git/hooks", Change.CREATED, kept="/k/x"),)
    call, said = live.subtranscript.steps
    assert isinstance(call, SubCall) and call.tool == "read_note" and call.status is ToolStatus.DONE
    assert call.result is not None and call.result.content == "milk, eggs"
    assert said == SubText("The notes list milk and eggs.") and live.subtranscript.call_ids == ("s1",)


def test_the_stored_forms_read_back_alike() -> None:
    grid, sandbox = grid_of(GRID_METADATA), sandbox_of(SANDBOX_METADATA)
    assert grid is not None and sandbox is not None
    assert grid_of(json.loads(json.dumps(grid.to_json()))) == grid
    assert sandbox_of(json.loads(json.dumps(sandbox.to_json()))) == sandbox


def test_a_message_stored_without_an_envelope_shows_its_text() -> None:
    facts = result_of_stored(None, "plain text result")
    assert facts.content == "plain text result" and facts.ok and not facts.unreadable


def test_a_failed_or_denied_call_keeps_its_status() -> None:
    failed = Envelope.failure("t", "c1", ErrorKind.TIMEOUT, "took too long")
    assert result_of_envelope(failed).status is ToolStatus.FAILED
    assert result_of_stored(failed.to_json(), "").status is ToolStatus.FAILED
    denied = Envelope.failure("t", "c1", ErrorKind.REJECTED, "denied", {DENIED_KEY: {"message": ""}})
    assert result_of_envelope(denied).status is ToolStatus.DENIED and result_of_envelope(denied).denied_note == ""


# -- malformed input: kept raw, never raised ---------------------------------------------------
@pytest.mark.parametrize("envelope", [["not", "an", "envelope"], "a string", 42, True])
def test_a_stored_envelope_that_is_not_one_is_unreadable_and_not_called_a_success(envelope: object) -> None:
    facts = result_of_stored(envelope, "what the model read")
    assert facts.unreadable == (Unreadable(Part.RESULT, json.dumps(envelope, ensure_ascii=False)),)
    assert facts.content == "what the model read" and facts.status is ToolStatus.FAILED


@pytest.mark.parametrize("entry", [
    "just a path",
    {"kind": "modify", "diff": ""},                                   # no path
    {"path": "", "kind": "modify", "diff": ""},                       # empty path
    {"path": 7, "kind": "modify", "diff": ""},                        # path not text
    {"path": "/w/a", "kind": "rename", "diff": ""},                   # a kind Echo Desk never writes
    {"path": "/w/a", "kind": None, "diff": ""},
    {"path": "/w/a", "kind": "modify", "diff": ["@@"]},               # diff not text
    {"path": "/w/a", "kind": "modify", "diff": "", "truncated": "yes"},
    {"path": "/w/a", "kind": "modify", "diff": "", "before_sha256": 12},
])
def test_a_stored_file_change_that_does_not_read_is_unreadable_and_the_others_stay(entry: object) -> None:
    stored = _stored(file_changes=[CHANGE.to_json(), entry, CHANGE.to_json()])
    facts = result_of_stored(json.loads(json.dumps(stored)), "")
    assert facts.file_changes == (CHANGE, CHANGE)
    assert facts.unreadable == (Unreadable(Part.FILE_CHANGE, json.dumps(entry, ensure_ascii=False)),)


def test_file_changes_that_are_not_a_list_are_one_unreadable_part() -> None:
    changes, bad = file_changes_of({"path": "/w/a"})
    assert changes == () and bad == (Unreadable(Part.FILE_CHANGE, '{"path": "/w/a"}'),)
    assert file_changes_of(None) == ((), ())


def test_a_sub_transcript_entry_that_does_not_read_is_unreadable() -> None:
    odd = [{"call": "read_note", "id": "s1"},
           {"result": "s1", "envelope": "not an envelope"},   # the result cannot be read
           {"result": "nobody", "envelope": {"ok": True}},     # a result for no call: nothing to stand under
           {"what": "is this"}, 17, {"call": {"name": "read_note"}, "id": "s2"},
           {"assistant": ""}]                                 # nothing said: no step
    sub, bad = subtranscript_of(odd)
    (call,) = sub.steps
    assert isinstance(call, SubCall) and call.result is None and call.status is ToolStatus.CANCELLED
    assert [b.raw for b in bad] == ['{"result": "s1", "envelope": "not an envelope"}', '{"what": "is this"}', "17",
                                    '{"call": {"name": "read_note"}, "id": "s2"}']
    assert all(b.part is Part.SUB_TRANSCRIPT for b in bad)
    assert subtranscript_of("a transcript") == (subtranscript_of(None)[0], (Unreadable(Part.SUB_TRANSCRIPT, '"a transcript"'),))


def test_a_live_tools_own_transcript_or_columns_are_not_the_cards() -> None:
    # Another tool's metadata may use these keys for something else: not shown, not flagged.
    envelope = Envelope(ok=True, tool="meeting_notes", call_id="c1", content="…",
                        metadata={"transcript": "Alice: hello", "columns": "three", "sandbox": "n/a"})
    facts = result_of_envelope(envelope)
    assert not facts.subtranscript and facts.grid is None and facts.sandbox is None and facts.unreadable == ()


@pytest.mark.parametrize(("key", "value", "part"), [
    ("grid", {"columns": "id,name", "rows": []}, Part.GRID),
    ("grid", [[1, 2]], Part.GRID),
    ("sandbox", {"sandboxed": "yes"}, Part.SANDBOX),
    ("sandbox", "sandboxed", Part.SANDBOX),
])
def test_a_stored_grid_or_sandbox_that_does_not_read_is_unreadable(key: str, value: object, part: Part) -> None:
    facts = result_of_stored(_stored(**{key: value}), "")
    assert facts.grid is None and facts.sandbox is None
    assert facts.unreadable == (Unreadable(part, json.dumps(value)),)
    assert facts.file_changes == (CHANGE,) and facts.content == "wrote it"  # the rest still shows


@pytest.mark.parametrize("count", [math.inf, -math.inf, math.nan, "9" * 5000, "many", [3], None])
def test_a_grid_with_a_hostile_row_count_falls_back_to_its_rows(count: object) -> None:
    grid = grid_of({**GRID_METADATA, "row_count": count})
    assert grid is not None and grid.row_count == 2 and grid.more_rows == 0


def test_a_huge_grid_is_bounded_and_odd_cells_are_text() -> None:
    loop: list[object] = []
    loop.append(loop)
    rows = [["x" * 10_000, {"nested": [1, 2]}, {1, 2}, b"bytes", loop]] * (MAX_ROWS * 4)
    grid = grid_of({"columns": ["a", "b", "c", "d", "e"], "rows": rows, "row_count": len(rows)})
    assert grid is not None and len(grid.rows) == MAX_ROWS and grid.row_count == MAX_ROWS * 4
    long, nested, a_set, raw, circular = grid.rows[0]
    assert long == "x" * (MAX_CELL_CHARS - 1) + "…" and nested == '{"nested":[1,2]}'
    assert a_set == '"{1, 2}"' and raw == "\"b'bytes'\"" and isinstance(circular, str)
    assert grid.columns[0] == GridColumn("a")


def test_sandbox_lists_are_bounded() -> None:
    facts = sandbox_of({"sandboxed": True, "refused_hosts": [f"h{i}.example" for i in range(10_000)]})
    assert facts == SandboxFacts(sandboxed=True, refused_hosts=tuple(f"h{i}.example" for i in range(MAX_ENTRIES)),
                                 refused_more=10_000 - MAX_ENTRIES)


def test_planted_entries_are_bounded_and_still_all_counted() -> None:
    """A command that planted thousands of files: the card (and the message stored from its facts)
    keeps the first few and how many more there were; its line and mark say the whole count."""
    many = [Planted(f"p{i}/.envrc", Change.CREATED, kept=f"/k/p{i}").to_json() for i in range(3_000)]
    facts = sandbox_of({"sandboxed": True, "planted": many})
    assert facts is not None and len(facts.planted) == MAX_ENTRIES
    assert facts.planted_more == 3_000 - MAX_ENTRIES and facts.planted_count == 3_000
    stored = facts.to_json()
    assert sandbox_of(json.loads(json.dumps(stored))) == facts  # (read back alike, not counted twice)
    card = TranscriptItem(TOOL, call_id="c1", tool_name="run_command")
    card.show_result(ResultFacts(ok=True, sandbox=facts))
    html = card_html(card, "Run a command", palette=LIGHT)
    assert "⚠ 3000 plants blocked" in html and "2994 more" in html
    assert sandbox_of({"sandboxed": True, "planted": many[:2], "planted_more": "lots"}).planted_more == 0  # type: ignore[union-attr]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                     max_leaves=20)
_KEYS = st.sampled_from(["ok", "content", "error", "error_kind", "file_changes", "transcript", "grid", "sandbox",
                         DENIED_KEY, "schema"])


@given(st.one_of(_JSON, st.dictionaries(_KEYS, _JSON, max_size=8)))
def test_any_stored_json_reads_and_renders_without_raising_and_loses_nothing(stored: object) -> None:
    facts = result_of_stored(stored, "text")
    assert isinstance(facts.status, ToolStatus)
    for part in facts.unreadable:
        json.loads(part.raw)  # the raw part is the JSON as stored, whole
    card = TranscriptItem(TOOL, call_id="c1", tool_name="t")
    card.show_result(facts)
    for expanded in (False, True):
        card.expanded = expanded
        assert card_html(card, "T", palette=LIGHT).startswith("<div>")
