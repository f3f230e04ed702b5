"""Hunks of a text change, and applying a chosen subset of them (per-hunk approval).

The hunks are difflib's groups with three lines of context — the same grouping as the
unified diff the person is shown (``common.diffs.unified_diff``), so hunk ``i`` here is
the ``i``-th ``@@`` block on screen. Applying a subset replaces only the chosen hunks' lines
of the previewed base; everything else (line endings, a missing final newline) stays as it was.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from echo_desk.common.textcodec import split_keep
from echo_desk.tools import FileChange

CONTEXT_LINES = 3


@dataclass(frozen=True)
class Hunk:
    """One change: old lines ``old_start``… (1-based, ``old_count`` of them) become ``new_lines``."""

    index: int
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[str, ...]
    added: tuple[str, ...]
    #: Where the changed lines sit in the old text (0-based, end exclusive).
    old_slice: tuple[int, int]
    #: The changed lines as a diff body (``-``/``+``, and `` `` for unchanged lines between changes).
    body: str = ""

    def describe(self) -> str:
        """The hunk for the model: its line ranges and text."""
        head = (f"hunk {self.index + 1} (old lines {self.old_start}-{self.old_start + max(self.old_count, 1) - 1}, "
                f"new lines {self.new_start}-{self.new_start + max(self.new_count, 1) - 1})")
        return f"{head}:\n{self.body}"


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n\\ No newline at end of file\n"


def _split(text: str) -> list[str]:
    return split_keep(text)  # the one line splitter of the file tools


def hunks_of(old_text: str, new_text: str) -> list[Hunk]:
    old, new = _split(old_text), _split(new_text)
    found: list[Hunk] = []
    # The same matcher settings as difflib.unified_diff, so the hunks are the ones on screen.
    for group in difflib.SequenceMatcher(None, old, new).get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        changed = [op for op in group if op[0] != "equal"]
        c1, c2 = changed[0][1], changed[-1][2]
        # Between the first and last change, equal runs inside the hunk are kept as they are.
        removed = tuple(old[c1:c2])
        added = tuple(new[changed[0][3]:changed[-1][4]])
        body: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                if c1 <= a1 and a2 <= c2:
                    body += [" " + _line(t) for t in old[a1:a2]]
                continue
            body += ["-" + _line(t) for t in old[a1:a2]] + ["+" + _line(t) for t in new[b1:b2]]
        found.append(Hunk(index=len(found), old_start=i1 + 1 if i2 > i1 else i1, old_count=i2 - i1,
                          new_start=j1 + 1 if j2 > j1 else j1, new_count=j2 - j1, removed=removed, added=added,
                          old_slice=(c1, c2), body="".join(body)))
    return found


def apply_hunks(old_text: str, hunks: Sequence[Hunk], selected: Collection[int]) -> str:
    """``old_text`` with only the ``selected`` hunks (by index) applied."""
    old = _split(old_text)
    out: list[str] = []
    position = 0
    for hunk in hunks:
        if hunk.index not in selected:
            continue
        start, end = hunk.old_slice
        out.extend(old[position:start])
        out.extend(hunk.added)
        position = end
    out.extend(old[position:])
    return "".join(out)


def shown_hunk_count(change: FileChange) -> int:
    """How many ``@@`` blocks the person was shown for ``change``."""
    # Only LF ends a diff line: a CR inside a file's line must not start a new one.
    return sum(1 for line in change.diff.split("\n") if line.startswith("@@"))


def selection_problem(selection: Mapping[str, Collection[int]], changes: Sequence[FileChange]) -> str:
    """Why ``selection`` (path → chosen hunk indices) does not fit what was shown ("" if it does)."""
    shown = {c.path: c for c in changes}
    for path, chosen in selection.items():
        change = shown.get(path)
        if change is None:
            return f"{path} was not in the preview"
        count = shown_hunk_count(change)
        if any(not isinstance(i, int) or not 0 <= i < count for i in chosen):
            return f"the selection for {path} names hunks that were not shown (it had {count})"
        if change.truncated and len(set(chosen)) != count:
            return f"the diff of {path} was shortened: it can only be taken whole or not at all"
    return ""


def bind_selection(binding: str, selection: Mapping[str, Collection[int]] | None) -> str:
    """The approval binding extended to the hunks chosen: without a selection it is unchanged."""
    if selection is None:
        return binding
    canonical = json.dumps({p: sorted(set(i)) for p, i in selection.items()}, sort_keys=True)
    return hashlib.sha256(f"{binding}\n{canonical}".encode()).hexdigest()
