"""Per-hunk application: any subset of hunks applied by the engine equals GNU patch applying
the same subset of the shown diff, byte for byte (line endings, BOM, missing final newline)."""

from __future__ import annotations

import codecs
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.common.diffs import unified_diff
from echo_desk.common.hunks import apply_hunks, bind_selection, hunks_of, selection_problem
from echo_desk.common.textcodec import split_keep
from echo_desk.tools import FileChange, FileChangeKind

PATCH = shutil.which("patch")

line = st.text(alphabet="ab \t\\+-@é中\r", max_size=10)
lines = st.lists(line, max_size=40)


def _text(parts: list[str], final_newline: bool) -> str:
    return "\n".join(parts) + ("\n" if final_newline and parts else "")


def _subset_diff(diff: str, chosen: set[int]) -> str:
    """The shown diff keeping only the ``chosen`` @@ blocks (what a person would cut by hand)."""
    rows = split_keep(diff)  # only LF ends a diff line
    head, blocks = rows[:2], []
    for row in rows[2:]:
        if row.startswith("@@"):
            blocks.append([row])
        else:
            blocks[-1].append(row)
    return "".join(head + [r for i, b in enumerate(blocks) if i in chosen for r in b])


def _patched(old: bytes, diff: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "old").write_bytes(old)
        (folder / "d.diff").write_bytes(diff.encode("utf-8"))
        subprocess.run([PATCH or "patch", "-s", "-F0", "-o", str(folder / "new"), str(folder / "old"),
                        str(folder / "d.diff")], check=True, capture_output=True, timeout=20)
        return (folder / "new").read_bytes()


@pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=lines, new=lines, old_nl=st.booleans(), new_nl=st.booleans(), bom=st.booleans(),
       seed=st.integers(0, 2**16))
def test_any_subset_equals_gnu_patch(old: list[str], new: list[str], old_nl: bool, new_nl: bool, bom: bool,
                                     seed: int) -> None:
    old_text, new_text = _text(old, old_nl), _text(new, new_nl)
    diff = unified_diff(old_text, new_text, "/f.txt")
    hunks = hunks_of(old_text, new_text)
    assert len(hunks) == sum(1 for r in split_keep(diff) if r.startswith("@@"))
    chosen = {h.index for h in hunks if random.Random(seed + h.index).random() < 0.5}
    prefix = codecs.BOM_UTF8 if bom else b""
    ours = prefix + apply_hunks(old_text, hunks, chosen).encode("utf-8")
    theirs = prefix + (_patched(old_text.encode("utf-8"), _subset_diff(diff, chosen)) if chosen
                       else old_text.encode("utf-8"))
    assert ours == theirs
    assert apply_hunks(old_text, hunks, {h.index for h in hunks}) == new_text


def test_selection_must_match_what_was_shown() -> None:
    diff = unified_diff("a\nb\n" + "x\n" * 10 + "c\n", "A\nb\n" + "x\n" * 10 + "C\n", "/f")
    change = FileChange(path="/f", kind=FileChangeKind.MODIFY, before_sha256="0", after_sha256="1", diff=diff)
    assert selection_problem({"/f": [0]}, [change]) == ""
    assert "not shown" in selection_problem({"/f": [2]}, [change])
    assert "not in the preview" in selection_problem({"/g": [0]}, [change])
    cut = FileChange(path="/f", kind=FileChangeKind.MODIFY, before_sha256="0", after_sha256="1", diff=diff,
                     truncated=True)
    assert "whole or not at all" in selection_problem({"/f": [0]}, [cut])
    crlf = FileChange(path="/c", kind=FileChangeKind.MODIFY, before_sha256="0", after_sha256="1",
                      diff="--- a/c\n+++ b/c\n@@ -1 +1 @@\n-x\r@@ y\n+z\r\n")
    assert "not shown" in selection_problem({"/c": [1]}, [crlf])  # a CR inside a line starts no hunk
    assert bind_selection("b", None) == "b"
    assert bind_selection("b", {"/f": [0]}) != bind_selection("b", {"/f": [1]}) != "b"
    assert bind_selection("b", {"/f": [1, 0]}) == bind_selection("b", {"/f": [0, 1, 1]})
