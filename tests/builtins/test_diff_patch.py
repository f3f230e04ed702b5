"""The diff in ``file_changes``, applied with GNU patch to the old content, gives the new content."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.builtins import EditFile, WriteFile
from echo_desk.common.diffs import cap, unified_diff
from echo_desk.tools import ToolExecutionContext, ToolResult

PATCH = shutil.which("patch")
pytestmark = pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")

line = st.text(alphabet="ab \t\\+-@é中\r", max_size=12)
lines = st.lists(line, max_size=25)


def _text(parts: list[str], final_newline: bool) -> str:
    return "\n".join(parts) + ("\n" if final_newline and parts else "")


def _apply_patch(folder: Path, old: bytes, diff: str) -> bytes:
    (folder / "old").write_bytes(old)
    (folder / "d.diff").write_bytes(diff.encode("utf-8"))
    subprocess.run([PATCH or "patch", "-s", "-o", str(folder / "new"), str(folder / "old"), str(folder / "d.diff")],
                   check=True, capture_output=True, timeout=20)
    return (folder / "new").read_bytes()


def _call(tool: WriteFile | EditFile, params: dict[str, object], root: Path) -> ToolResult:
    async def go() -> ToolResult:
        ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name=tool.name, scope_id="s",
                                   workspace_roots=(root,), write_roots=(root,))
        ctx.preview = await tool.preview(params, ctx)
        return await tool.execute(params, ctx)

    return asyncio.run(go())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=lines, new=lines, old_nl=st.booleans(), new_nl=st.booleans())
def test_write_file_diff_reproduces_new_content_with_patch(old: list[str], new: list[str], old_nl: bool,
                                                          new_nl: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        target = root / "f.txt"
        before = _text(old, old_nl).encode("utf-8")
        target.write_bytes(before)
        result = _call(WriteFile(), {"path": "f.txt", "content": _text(new, new_nl)}, root)
        assert result.success, result.error
        after = target.read_bytes()
        change = result.file_changes[0]
        if before == after:
            assert change.diff == ""
        else:
            assert _apply_patch(root, before, change.diff) == after


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=lines, middle=st.text(alphabet="xyz\n", min_size=1, max_size=30), replacement=st.text(max_size=30),
       suffix=lines)
def test_edit_file_diff_reproduces_new_content_with_patch(prefix: list[str], middle: str, replacement: str,
                                                         suffix: list[str]) -> None:
    marker = "\u2603" + middle  # a snowman makes the edited text unique in the file
    if replacement == marker:
        replacement += "!"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        before = (_text(prefix, True) + marker + _text(suffix, False)).encode("utf-8")
        (root / "f.txt").write_bytes(before)
        result = _call(EditFile(), {"path": "f.txt", "edits": [{"old": marker, "new": replacement}]}, root)
        assert result.success, result.error
        after = (root / "f.txt").read_bytes()
        assert _apply_patch(root, before, result.file_changes[0].diff) == after


def test_new_file_diff_creates_the_content(tmp_path: Path) -> None:
    diff = unified_diff("", "a\nb", "/x/new.txt", created=True)
    assert diff.startswith("--- /dev/null\n+++ b/x/new.txt\n")
    assert _apply_patch(tmp_path, b"", diff) == b"a\nb"


def test_long_diffs_are_cut_at_a_line_and_marked() -> None:
    diff = unified_diff("", "".join(f"line {i}\n" for i in range(50_000)), "/x", created=True)
    cut, truncated = cap(diff, 10_000)
    assert truncated and len(cut) <= 10_000 and cut.endswith("\n")
    assert cap("short\n") == ("short\n", False)
