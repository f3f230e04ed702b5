"""Unified diffs that GNU ``patch`` applies exactly, and the ``FileChange`` records built on them."""

from __future__ import annotations

import difflib

from echo_desk.common.atomic import sha256
from echo_desk.common.textcodec import split_keep
from echo_desk.tools import FileChange, FileChangeKind

#: Diffs longer than this are cut (the envelope says ``truncated``) to keep the card small.
MAX_DIFF_CHARS = 200_000
_NO_EOL = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, path: str, *, created: bool = False, context: int = 3) -> str:
    """A unified diff from ``old`` to ``new``, with "No newline at end of file" markers."""
    out: list[str] = []
    rows = difflib.unified_diff(
        split_keep(old),
        split_keep(new),
        fromfile="/dev/null" if created else f"a{path}",
        tofile=f"b{path}",
        n=context,
        lineterm="",
    )
    for index, row in enumerate(rows):
        if index < 2:  # the ---/+++ headers come without a line end when lineterm=""
            out.append(row + "\n")
        elif row.startswith("@@"):
            out.append(row + "\n")
        elif row.endswith("\n"):
            out.append(row)
        else:
            out.append(row + "\n" + _NO_EOL)
    return "".join(out)


def cap(diff: str, limit: int = MAX_DIFF_CHARS) -> tuple[str, bool]:
    """``diff`` cut at a line boundary below ``limit`` characters, and whether it was cut."""
    if len(diff) <= limit:
        return diff, False
    cut = diff.rfind("\n", 0, limit)
    return diff[: cut + 1] if cut > 0 else diff[:limit], True


def file_change(
    path: str, before: bytes | None, after: bytes, old_text: str, new_text: str
) -> FileChange:
    """The record shown for approval and returned in the envelope."""
    diff, truncated = cap(unified_diff(old_text, new_text, path, created=before is None))
    return FileChange(
        path=path,
        kind=FileChangeKind.CREATE if before is None else FileChangeKind.MODIFY,
        before_sha256=None if before is None else sha256(before),
        after_sha256=sha256(after),
        diff=diff,
        truncated=truncated,
    )
