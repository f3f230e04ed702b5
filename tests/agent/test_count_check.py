"""An answer whose number contradicts what a tool counted is flagged; numbers only, any language."""

from __future__ import annotations

import pytest

from echo_desk.agent.count_check import CountMismatch, count_mismatch, numbers_in
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.tools import Counted, ErrorKind, counted
from tests.agent.fake_model import ScriptedModel, calls, say

CSV = "id,name\n" + "".join(f"{i},item{i}\n" for i in range(1, 18))  # a header and 17 rows: 18 lines


def _read(content: str, lines: int) -> Envelope:
    return Envelope(ok=True, tool="read_file", call_id="c1", content=f"[/ws/f — {lines} lines — utf-8, LF]\n{content}",
                    metadata=counted(lines=lines))


def _listed(entries: int, files: int) -> Envelope:
    return Envelope(ok=True, tool="list_dir", call_id="c2", content="(listing)",
                    metadata=counted(entries=entries, files=files, folders=entries - files))


@pytest.mark.parametrize("answer", [
    "There are 16 data rows.",
    "data.csv 有 16 行数据。",  # digits beside CJK characters are a count
    "Il y a 16 lignes de données.",
    "16",
])
def test_a_number_beside_a_count_is_flagged_in_any_language(answer: str) -> None:
    found = count_mismatch(answer, "How many rows?", [_read(CSV, 18)])
    assert found == CountMismatch(tool="read_file", counted=Counted.LINES, found=18, claimed=16)


@pytest.mark.parametrize("answer", [
    "There are 17 data rows.",  # the lines without the first (a header)
    "The file has 18 lines.",
    "17 rows, 18 lines with the header; row 16 is item16.",  # a counted number is stated
    "The rows are:\n1. item1\n2. item2",  # a list's numbering, far from 18 anyway
])
def test_an_answer_stating_a_counted_number_is_not_flagged(answer: str) -> None:
    assert count_mismatch(answer, "How many rows?", [_read(CSV, 18)]) is None


@pytest.mark.parametrize(("answer", "content", "request_text"), [
    ("The meeting is at 4 pm.", "Team notes\nThe meeting is at 4 pm.\nBring it.\nx\ny\nz\n", "When?"),  # quoted
    ("Bump it to 1.4.3.", "1.4.2\n", "Bump the version"),  # a version
    ("It waits 0.5 s per step.", "TICK = 0.5\n", "Explain"),  # a decimal
    ("Room B5 at 15:30.", "Room B5 at 15:30.\n", "Where?"),  # a name and a time
    ("More than 5.", "a\nb\nc\nd\ne\nf\n", "Has it more than 5 lines?"),  # the request's own number
])
def test_numbers_that_are_not_counts_are_not_flagged(answer: str, content: str, request_text: str) -> None:
    lines = content.count("\n")
    assert count_mismatch(answer, request_text, [_read(content, lines)]) is None


def test_a_listing_s_entries_files_and_folders_all_count() -> None:
    assert count_mismatch("There are 3 files.", "How many files?", [_listed(4, 3)]) is None  # files: 3
    assert count_mismatch("There is 1 folder.", "?", [_listed(4, 3)]) is None  # folders: 1
    found = count_mismatch("There are 5 entries.", "How many?", [_listed(4, 3)])
    assert found is not None and found.counted is Counted.ENTRIES and found.found == 4


def test_nothing_counted_or_a_tiny_count_or_a_failed_call_is_not_checked() -> None:
    assert count_mismatch("There are 16.", "?", [Envelope(ok=True, tool="x", call_id="1", content="y")]) is None
    assert count_mismatch("There are 2 lines.", "?", [_read("a\n", 1)]) is None  # a 1-line file: not checked
    failed = Envelope.failure("read_file", "c", ErrorKind.BUSINESS,
                              "no such file", metadata=counted(lines=18))
    assert count_mismatch("There are 16.", "?", [failed]) is None


def test_numbers_in_an_answer() -> None:
    assert numbers_in("16 rows, v1.4.3, 0.5 s, B12, 15:30, 2024-01-02, 有6行, (7)") == [16, 6, 7]


async def test_the_loop_flags_the_answer_with_a_real_read(runtime: Runtime, scope: Scope) -> None:
    (scope.workspace_roots[0] / "data.csv").write_text(CSV, encoding="utf-8")
    model = ScriptedModel([calls(("c1", "read_file", '{"path": "data.csv"}')), say("data.csv has 16 data rows.")])
    loop = AgentLoop(model, runtime.dispatcher, runtime.schema_factory)
    outcome = await loop.run([ChatMessage(role="user", content="How many rows in data.csv?")], scope, ScriptedHost())
    assert outcome.count_mismatch == CountMismatch(tool="read_file", counted=Counted.LINES, found=18, claimed=16)
    # What `echo-desk ask` prints: both readings of the file's lines (a header and its rows).
    assert outcome.count_mismatch.describe() == ("the answer says 16, but read_file counted 18 lines "
                                                 "(17 after the first); check it")
    right = ScriptedModel([calls(("c1", "read_file", '{"path": "data.csv"}')), say("It has 17 data rows.")])
    outcome = await AgentLoop(right, runtime.dispatcher, runtime.schema_factory).run(
        [ChatMessage(role="user", content="How many rows in data.csv?")], scope, ScriptedHost())
    assert outcome.count_mismatch is None
