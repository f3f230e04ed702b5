"""Per-hunk application: any subset of hunks applied by the engine equals GNU patch applying
the same subset of the shown diff, byte for byte (line endings, BOM, missing final newline),
whatever the file is called. Hunks are data (``FileChange.hunks``), never re-read from the text.

The property tests are deterministic (``derandomize``): CI cannot pass or fail by luck.
"""

from __future__ import annotations

import asyncio
import codecs
import random
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.builtins import WriteFile
from echo_desk.common.diffs import diff_with_hunks, quote_path, unified_diff
from echo_desk.common.hunks import apply_hunks, bind_selection, hunks_of, selection_problem
from echo_desk.tools import DiffHunk, FileChange, FileChangeKind, HunkSelection, ToolExecutionContext

PATCH = shutil.which("patch")

line = st.text(alphabet="ab \t\\+-@é中\r", max_size=10)
lines = st.lists(line, max_size=40)
#: File names git allows: any character but "/" and NUL, control characters and "@@" included.
names = st.lists(st.sampled_from([*"ab.-_ @+\\\"'$`*中é", "\n", "\t", "\r", "\x1b", "\x7f", "\x01", "\u202e",
                                  "\u2028", "@@ -1,1 +1,1 @@"]),
                 min_size=1, max_size=10).map("".join).filter(lambda n: bool(n.strip()) and n not in (".", ".."))


def _text(parts: list[str], final_newline: bool) -> str:
    return "\n".join(parts) + ("\n" if final_newline and parts else "")


def _subset_diff(diff: str, hunks: tuple[DiffHunk, ...], chosen: set[str]) -> str:
    """The shown diff keeping only the ``chosen`` hunks (what a person would cut by hand), after
    checking that the hunks given tile the diff exactly: two header lines, then each hunk."""
    rows = diff.split("\n")
    assert rows[-1] == "" and len(rows) - 1 == 2 + sum(h.line_count for h in hunks)
    kept = rows[:2]
    for hunk in hunks:
        span = rows[hunk.first_line:hunk.first_line + hunk.line_count]
        assert span[0] == hunk.header and span[0].startswith("@@ ")
        if hunk.id in chosen:
            kept += span
    return "\n".join(kept) + "\n"


def _patched(old: bytes, diff: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "old").write_bytes(old)
        (folder / "d.diff").write_bytes(diff.encode("utf-8", "surrogatepass"))
        subprocess.run([PATCH or "patch", "-s", "-F0", "-o", str(folder / "new"), str(folder / "old"),
                        str(folder / "d.diff")], check=True, capture_output=True, timeout=20)
        return (folder / "new").read_bytes()


@pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(old=lines, new=lines, old_nl=st.booleans(), new_nl=st.booleans(), bom=st.booleans(),
       seed=st.integers(0, 2**16))
def test_any_subset_equals_gnu_patch(old: list[str], new: list[str], old_nl: bool, new_nl: bool, bom: bool,
                                     seed: int) -> None:
    old_text, new_text = _text(old, old_nl), _text(new, new_nl)
    diff, shown = diff_with_hunks(old_text, new_text, "/f.txt")
    hunks = hunks_of(old_text, new_text)
    assert [h.id for h in hunks] == [h.id for h in shown]
    chosen = {h.id for h in hunks if random.Random(seed + h.index).random() < 0.5}
    prefix = codecs.BOM_UTF8 if bom else b""
    ours = prefix + apply_hunks(old_text, hunks, chosen).encode("utf-8")
    theirs = prefix + (_patched(old_text.encode("utf-8"), _subset_diff(diff, shown, chosen)) if chosen
                       else old_text.encode("utf-8"))
    assert ours == theirs
    assert apply_hunks(old_text, hunks, {h.id for h in hunks}) == new_text


def _write_selected(root: Path, name: str, old: bytes, content: str, pick: random.Random) -> tuple[bytes, str, set[str],
                                                                                                   FileChange]:
    """The real write_file, previewed and run with a random subset of the shown hunks kept."""
    tool = WriteFile()
    (root / name).write_bytes(old)

    async def go() -> tuple[bytes, str, set[str], FileChange]:
        ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name=tool.name, scope_id="s",
                                   workspace_roots=(root,), write_roots=(root,))
        ctx.preview = await tool.preview({"path": name, "content": content}, ctx)
        (change,) = ctx.preview.file_changes
        chosen = {h.id for h in change.hunks if pick.random() < 0.5}
        ctx.hunk_selection = HunkSelection({change.path: frozenset(chosen)})
        result = await tool.execute({"path": name, "content": content}, ctx)
        assert result.success, result.error
        return (root / name).read_bytes(), change.diff, chosen, change

    return asyncio.run(go())


@pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=names, old=lines, new=lines, seed=st.integers(0, 2**16))
def test_whatever_the_file_is_called_the_written_bytes_are_patch_of_the_kept_hunks(
        name: str, old: list[str], new: list[str], seed: int) -> None:
    old_text, new_text = _text(old, True), _text(new, True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        written, diff, chosen, change = _write_selected(root, name, old_text.encode(), new_text, random.Random(seed))
    if not change.hunks:  # no change at all: nothing to choose, nothing written differently
        assert written == old_text.encode()
        return
    # The header is two lines however the file is called: its name is quoted, never raw.
    assert diff.split("\n")[0].startswith("--- ") and diff.split("\n")[1].startswith("+++ ")
    assert diff.split("\n")[2] == change.hunks[0].header
    expected = _patched(old_text.encode(), _subset_diff(diff, change.hunks, chosen)) if chosen else old_text.encode()
    assert written == expected


@pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
def test_gnu_patch_reads_the_quoted_name_as_the_file_it_is(tmp_path: Path) -> None:
    name = 'notes\n@@ -1,1 +1,1 @@\n"x"\t\\y\x1b.txt'
    (tmp_path / name).write_text("a\nb\n")
    diff = unified_diff("a\nb\n", "a\nB\n", "/" + name)
    assert diff.startswith('--- "a/notes\\n@@ -1,1 +1,1 @@\\n\\"x\\"\\t\\\\y\\033.txt"\n')
    subprocess.run([PATCH or "patch", "-s", "-p1"], input=diff.encode(), cwd=tmp_path, check=True,
                   capture_output=True, timeout=20)
    assert (tmp_path / name).read_text() == "a\nB\n"


def test_names_are_quoted_as_git_quotes_them() -> None:
    assert quote_path("a/plain name é中.txt") == "a/plain name é中.txt"
    assert quote_path("a/notes\n@@.txt") == '"a/notes\\n@@.txt"'
    assert quote_path('a/"q"\\') == '"a/\\"q\\"\\\\"'
    assert quote_path("a/\x01\x7f\t") == '"a/\\001\\177\\t"'


def test_selection_must_name_hunks_that_were_shown() -> None:
    diff, hunks = diff_with_hunks("a\nb\n" + "x\n" * 10 + "c\n", "A\nb\n" + "x\n" * 10 + "C\n", "/f")
    change = FileChange(path="/f", kind=FileChangeKind.MODIFY, before_sha256="0", after_sha256="1", diff=diff,
                        hunks=hunks)
    first, second = (h.id for h in hunks)
    assert selection_problem({"/f": [first]}, [change]) == ""
    assert selection_problem({"/f": []}, [change]) == ""
    assert "not shown" in selection_problem({"/f": ["h3-000000000000"]}, [change])
    assert "not shown" in selection_problem({"/f": [0]}, [change])  # type: ignore[list-item]
    assert "not in the preview" in selection_problem({"/g": [first]}, [change])
    cut = FileChange(path="/f", kind=FileChangeKind.MODIFY, before_sha256="0", after_sha256="1", diff=diff,
                     truncated=True)
    assert "taken whole" in selection_problem({"/f": [first]}, [cut])
    assert bind_selection("b", None) == "b"
    assert bind_selection("b", {"/f": [first]}) != bind_selection("b", {"/f": [second]}) != "b"
    assert bind_selection("b", {"/f": [second, first]}) == bind_selection("b", {"/f": [first, second, second]})


def test_ids_are_stable_for_the_same_change_and_differ_between_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(30))
    new = old.replace("line 3\n", "x\n").replace("line 25\n", "y\n")
    assert [h.id for h in hunks_of(old, new)] == [h.id for h in hunks_of(old, new)]
    assert len({h.id for h in hunks_of(old, new)}) == 2
    same_place_other_text = hunks_of(old, new.replace("x\n", "z\n"))
    assert same_place_other_text[0].id != hunks_of(old, new)[0].id
