"""A tool card's HTML is a pure function of the typed row and a palette, rendered without Qt:
what each part says, untrusted text escaped with hidden characters made visible, a part that
could not be read said as such with its raw JSON. Runs in the Qt-blocked pass."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from typing import Any

import pytest

from echo_desk.agent.status import ToolStatus
from echo_desk.common.visible_text import has_hidden, visible
from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.results import FileChange, FileChangeKind
from echo_desk.ui.chat.card_facts import (
    GridColumn,
    GridFacts,
    Part,
    SandboxFacts,
    SubCall,
    SubResult,
    SubText,
    SubTranscript,
    Unreadable,
)
from echo_desk.ui.chat.card_parse import result_of_stored
from echo_desk.ui.chat.result_grid import grid_html
from echo_desk.ui.chat.sandbox_card import sandbox_html
from echo_desk.ui.chat.subagent_card import subtranscript_html
from echo_desk.ui.chat.tool_card import REVERT_ANCHOR, card_html, copy_text, status_chip
from echo_desk.ui.chat.transcript_item import TOOL, TranscriptItem
from echo_desk.ui.core.palette import DARK, LIGHT, tint
from tests.hostile_text import HIDDEN

DIFF = "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-old line\n+new line\n"


def _card(**fields: Any) -> TranscriptItem:
    return TranscriptItem(TOOL, call_id="c1", tool_name="write_note", arguments='{"path": "n.txt"}', **fields)


def _change(path: str = "/w/n.txt", diff: str = DIFF) -> FileChange:
    return FileChange(path=path, kind=FileChangeKind.MODIFY, before_sha256="a", after_sha256="b", diff=diff)


def _no_hidden_left(markup: str) -> bool:
    # html.escape makes entities of & < > " ' only: a hidden character would be in the markup as it is.
    return not has_hidden(markup)


def test_the_card_modules_import_no_qt() -> None:
    code = ("import sys\n"
            "import echo_desk.ui.chat.tool_card, echo_desk.ui.chat.card_facts, echo_desk.ui.chat.transcript_item\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'qasync')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_a_done_card_with_a_change_shows_its_counts_its_diff_and_revert() -> None:
    card = _card(status=ToolStatus.DONE, result="wrote it", file_changes=(_change(),))
    collapsed = card_html(card, "Write note", palette=LIGHT)
    assert "Write note" in collapsed and "n.txt" in collapsed and "+1" in collapsed and "−1" in collapsed
    assert REVERT_ANCHOR in collapsed and "new line" not in collapsed and "Show all" in collapsed
    card.expanded = True
    expanded = card_html(card, "Write note", palette=LIGHT)
    assert "+new line" in expanded and LIGHT.diff_add in expanded and "Show all" not in expanded
    card.reverted = True
    assert REVERT_ANCHOR not in card_html(card, "Write note", palette=LIGHT)


def test_the_html_is_a_function_of_the_palette() -> None:
    card = _card(status=ToolStatus.FAILED, error="boom")
    light, dark = card_html(card, "Write note", palette=LIGHT), card_html(card, "Write note", palette=DARK)
    assert LIGHT.danger in light and DARK.danger not in light
    assert DARK.danger in dark and LIGHT.danger not in dark
    assert tint(DARK.danger, DARK.card, 0.16) in status_chip(ToolStatus.FAILED, DARK)
    assert card_html(card, "Write note", palette=DARK) == dark  # the same row, the same HTML


def test_tint_mixes_hex_colours() -> None:
    assert tint("#ffffff", "#000000", 0.5) == "#808080"
    assert tint("#0969da", "#f6f8fa", 0.0) == "#f6f8fa" and tint("#0969da", "#f6f8fa", 1.0) == "#0969da"
    with pytest.raises(ValueError, match="rrggbb"):
        tint("red", "#000000", 0.5)


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_untrusted_text_in_every_part_is_shown_with_hidden_characters_made_visible(name: str) -> None:
    hostile = HIDDEN[name]
    sub = SubTranscript((SubCall(call_id="s1", tool="read_note", arguments=json.dumps({"q": hostile}),
                                 result=SubResult(ok=True, content=hostile)), SubText(hostile)))
    grid = GridFacts(columns=(GridColumn(hostile, "text"),), rows=((hostile[:100],),), row_count=1, status=hostile)
    sandbox = SandboxFacts(sandboxed=True, refused_hosts=(hostile,),
                           planted=(Planted(hostile, Change.CREATED, kept="/k/" + hostile),))
    card = _card(status=ToolStatus.DONE, subtranscript=sub, grid=grid, sandbox=sandbox, error=hostile,
                 file_changes=(_change(path="/w/" + hostile),), unreadable=(Unreadable(Part.GRID, hostile),),
                 expanded=True)
    markup = card_html(card, "Write note", palette=LIGHT)
    assert _no_hidden_left(markup), name
    assert html.escape(visible(hostile)) in markup
    for part in (subtranscript_html(sub, lambda n: n, expanded=True, palette=LIGHT)[0],
                 grid_html(grid, expanded=True, palette=LIGHT)[0], sandbox_html(sandbox, LIGHT)):
        assert _no_hidden_left(part), name


def test_markup_in_untrusted_text_is_shown_as_text() -> None:
    evil = "<img src='file:///etc/hostname'><b>bold</b>"
    grid = GridFacts(columns=(GridColumn(evil),), rows=((evil,),), row_count=1)
    card = _card(status=ToolStatus.DONE, grid=grid, subtranscript=SubTranscript((SubText(evil),)),
                 unreadable=(Unreadable(Part.SANDBOX, evil),))
    markup = card_html(card, "Write note", palette=LIGHT)
    assert "<img" not in markup and "<b>bold" not in markup and "&lt;img" in markup


def test_a_grid_says_what_it_leaves_out() -> None:
    grid = GridFacts(columns=tuple(GridColumn(f"c{i}", "integer") for i in range(10)),
                     rows=tuple((i, None, *range(8)) for i in range(20)), row_count=20, more_rows=5,
                     more_rows_exact=False)
    collapsed, more = grid_html(grid, expanded=False, palette=LIGHT)
    assert more and "at least 17 more rows" in collapsed and "2 more columns" in collapsed and "NULL" in collapsed
    assert "c7" in collapsed and "c8" not in collapsed and "align='right'" in collapsed
    expanded, more = grid_html(grid, expanded=True, palette=LIGHT)
    assert not more and "c9" in expanded and "at least 5 more rows" in expanded


def test_the_sandbox_lines_follow_the_facts() -> None:
    inside = sandbox_html(SandboxFacts(sandboxed=True, domains=("pypi.org",), blocked=("network",)), LIGHT)
    assert "Ran in the sandbox · network only to: pypi.org" in inside and "network access" in inside
    outside = sandbox_html(SandboxFacts(sandboxed=False, mode="sandboxed", status="apparmor_userns"), DARK)
    assert "Ran outside the sandbox, with all your rights" in outside and DARK.warn in outside
    assert sandbox_html(SandboxFacts(sandboxed=False, mode="off"), LIGHT) == ""


def test_a_sub_agent_block_shows_the_last_steps_collapsed() -> None:
    answered = [SubCall(call_id=f"s{i}", tool="read_note",
                        result=SubResult(ok=i % 2 == 0, error_kind="timeout", error="slow" if i % 2 else ""))
                for i in range(5)]
    steps = (*answered, SubCall(call_id="s9", tool="write_note"))
    block, hidden = subtranscript_html(SubTranscript(steps), lambda n: {"read_note": "Read note"}.get(n, n),
                                       expanded=False, palette=LIGHT)
    assert hidden == 3 and "… 3 earlier steps" in block and "tool calls: 6" in block
    assert "Read note" in block and "slow" in block and "Cancelled" in block  # the last call never returned


def test_a_part_that_could_not_be_read_is_said_and_kept_raw() -> None:
    raw = json.dumps({"path": 7, "kind": "rename", "diff": "x" * 1000})
    card = _card(status=ToolStatus.DONE, result="wrote it", unreadable=(Unreadable(Part.FILE_CHANGE, raw),))
    collapsed = card_html(card, "Write note", palette=LIGHT)
    assert "Could not show a file change: it is not in a form Echo Desk can read. As received:" in collapsed
    assert html.escape(raw[:300]) in collapsed and html.escape(raw) not in collapsed
    assert f"{len(raw) - 300} more characters (Copy takes them all)" in collapsed and "Show all" in collapsed
    card.expanded = True
    assert html.escape(raw) in card_html(card, "Write note", palette=LIGHT)
    assert raw in copy_text(card) and "wrote it" in copy_text(card)


def test_a_malformed_stored_result_renders_a_could_not_show_card() -> None:
    # As the transcript reopens it: read once, then rendered; nothing raises.
    stored = {"ok": True, "content": "wrote it", "file_changes": ["not a change", {"path": "/w/a", "kind": "modify",
                                                                                    "diff": DIFF}],
              "transcript": {"call": "x"}, "grid": {"columns": 3}, "sandbox": []}
    card = _card()
    card.show_result(result_of_stored(stored, ""))
    markup = card_html(card, "Write note", palette=LIGHT)
    for what in ("a file change", "the sub-agent's transcript", "the result table", "where the command ran"):
        assert html.escape(f"Could not show {what}:") in markup
    assert "/w/a" in markup and "wrote it" in markup and card.status is ToolStatus.DONE
    whole = card_html(_with_result(["envelope", "as", "a", "list"]), "Write note", palette=LIGHT)
    assert "Could not show this result:" in whole and "Failed" in whole


def _with_result(stored: object) -> TranscriptItem:
    card = _card()
    card.show_result(result_of_stored(stored, "what the model read"))
    return card
