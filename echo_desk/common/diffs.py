"""Unified diffs that GNU ``patch`` applies exactly, and the ``FileChange`` records built on them.

The diff is written from the engine's hunks (``common.hunks``), and the ``FileChange`` carries
those hunks as data (``DiffHunk``: id and place in the diff), so the approval dialog and the
tool never look for ``@@`` lines. Paths in the ``---``/``+++`` lines are quoted with C escapes
as git quotes them (``"a/notes\\n@@…"``), so a file name never adds a line to the diff.
"""

from __future__ import annotations

from echo_desk.common.atomic import sha256
from echo_desk.common.hunks import Hunk, diff_hunks, hunks_of
from echo_desk.tools import DiffHunk, FileChange, FileChangeKind

#: Diffs longer than this are cut (the envelope says ``truncated``) to keep the card small.
MAX_DIFF_CHARS = 200_000
_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
            '"': '\\"', "\\": "\\\\"}


def quote_path(name: str) -> str:
    """``name`` as git writes it in a diff header: as is, or between double quotes with C escapes
    when it holds a control character, a double quote or a backslash (git's ``quote_c_style``,
    with ``core.quotePath=false``: other characters stay as they are)."""
    if not any(c in _ESCAPES or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return name
    out = []
    for c in name:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def named(path: object) -> str:
    """A path as the file tools name it in what the model reads: as is, or quoted with C escapes
    when it holds a control character (a line feed in a name must not start a new line; a quote
    or a backslash alone is left as it is, so the name reads as the one to pass back)."""
    text = str(path)
    return quote_path(text) if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text) else text


def diff_with_hunks(old: str, new: str, path: str, *, created: bool = False) -> tuple[str, tuple[DiffHunk, ...]]:
    """A unified diff from ``old`` to ``new`` ("No newline at end of file" markers included), and
    its hunks as data. No change: an empty diff and no hunks."""
    hunks = hunks_of(old, new)
    if not hunks:
        return "", ()
    head = (f"--- {'/dev/null' if created else quote_path(f'a{path}')}\n", f"+++ {quote_path(f'b{path}')}\n")
    return _written(head, hunks), diff_hunks(hunks, len(head))


def unified_diff(old: str, new: str, path: str, *, created: bool = False) -> str:
    """The diff text alone (see ``diff_with_hunks``)."""
    return diff_with_hunks(old, new, path, created=created)[0]


def labelled_diff(old: str, new: str, before: str, after: str) -> str:
    """A unified diff headed ``--- before`` and ``+++ after`` (labels of the caller's, shown to a
    person rather than given to ``patch``), with the "No newline at end of file" markers, so a
    last line without a line feed never runs into the next one. No change: an empty diff."""
    hunks = hunks_of(old, new)
    return _written((f"--- {before}\n", f"+++ {after}\n"), hunks) if hunks else ""


def _written(head: tuple[str, str], hunks: list[Hunk]) -> str:
    return "".join([*head, *(row for h in hunks for row in (h.header + "\n", *h.lines))])


def cap(diff: str, limit: int = MAX_DIFF_CHARS) -> tuple[str, bool]:
    """``diff`` cut at a line boundary below ``limit`` characters, and whether it was cut."""
    if len(diff) <= limit:
        return diff, False
    cut = diff.rfind("\n", 0, limit)
    return diff[: cut + 1] if cut > 0 else diff[:limit], True


def file_change(
    path: str, before: bytes | None, after: bytes, old_text: str, new_text: str
) -> FileChange:
    """The record shown for approval and returned in the envelope (a shortened diff carries no
    hunks: it is taken whole or not at all)."""
    full, hunks = diff_with_hunks(old_text, new_text, path, created=before is None)
    diff, truncated = cap(full)
    return FileChange(
        path=path,
        kind=FileChangeKind.CREATE if before is None else FileChangeKind.MODIFY,
        before_sha256=None if before is None else sha256(before),
        after_sha256=sha256(after),
        diff=diff,
        truncated=truncated,
        hunks=() if truncated else hunks,
    )
