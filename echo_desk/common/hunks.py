"""Hunks of a text change, and applying a chosen subset of them (per-hunk approval).

The hunks are difflib's groups with three lines of context, and the unified diff the person is
shown (``common.diffs``) is written from them, so each ``DiffHunk`` of a ``FileChange`` is
exactly a ``Hunk`` here, under the same id. The person's choice is a ``HunkSelection`` of ids
(``echo_desk.tools``); applying it replaces only the chosen hunks' lines of the previewed base,
everything else (line endings, a missing final newline) staying as it was. Nothing here reads
hunks back out of diff text.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from echo_desk.common.textcodec import split_keep
from echo_desk.tools import DiffHunk, FileChange

CONTEXT_LINES = 3
NO_NEWLINE = "\\ No newline at end of file\n"


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
    #: Its ``@@ -a,b +c,d @@`` line (without the line end) and its lines in the diff, context
    #: included, each ending with a line feed.
    header: str = ""
    lines: tuple[str, ...] = ()
    #: Stable for the same change: its position and a digest of its header and lines.
    id: str = ""
    #: Its first added line with "+" (or first removed line with "-"): a label for the person.
    first_change: str = ""

    def describe(self) -> str:
        """The hunk for the model: its line ranges and text."""
        head = (f"hunk {self.index + 1} (old lines {self.old_start}-{self.old_start + max(self.old_count, 1) - 1}, "
                f"new lines {self.new_start}-{self.new_start + max(self.new_count, 1) - 1})")
        return f"{head}:\n{self.body}"


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n" + NO_NEWLINE


def _split(text: str) -> list[str]:
    return split_keep(text)  # the one line splitter of the file tools


def _range(start: int, stop: int) -> str:
    """A ``@@`` range as difflib and GNU diff write it: ``3``, ``3,4`` or ``2,0`` (empty)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def hunks_of(old_text: str, new_text: str) -> list[Hunk]:
    old, new = _split(old_text), _split(new_text)
    found: list[Hunk] = []
    # The same matcher settings as difflib.unified_diff (the diff shown is written from these).
    for group in difflib.SequenceMatcher(None, old, new).get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        changed = [op for op in group if op[0] != "equal"]
        c1, c2 = changed[0][1], changed[-1][2]
        # Between the first and last change, equal runs inside the hunk are kept as they are.
        removed = tuple(old[c1:c2])
        added = tuple(new[changed[0][3]:changed[-1][4]])
        body: list[str] = []
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                context = [" " + _line(t) for t in old[a1:a2]]
                lines += context
                if c1 <= a1 and a2 <= c2:
                    body += context
                continue
            change = ["-" + _line(t) for t in old[a1:a2]] + ["+" + _line(t) for t in new[b1:b2]]
            body += change
            lines += change
        header = f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@"
        digest = hashlib.sha256("".join([header, "\n", *lines]).encode("utf-8", "surrogatepass")).hexdigest()
        # What it writes (its first added line), or what it takes away when it only removes.
        first_change = ("+" + added[0] if added else "-" + removed[0]).rstrip("\r\n")
        found.append(Hunk(index=len(found), old_start=i1 + 1 if i2 > i1 else i1, old_count=i2 - i1,
                          new_start=j1 + 1 if j2 > j1 else j1, new_count=j2 - j1, removed=removed, added=added,
                          old_slice=(c1, c2), body="".join(body), header=header, lines=tuple(lines),
                          id=f"h{len(found) + 1}-{digest[:12]}", first_change=first_change))
    return found


def diff_hunks(hunks: Sequence[Hunk], first_line: int) -> tuple[DiffHunk, ...]:
    """The ``DiffHunk``s of a diff whose first hunk starts at line ``first_line`` (after the
    headers), the hunks written one after the other as ``header`` + ``lines``."""
    found: list[DiffHunk] = []
    line = first_line
    for hunk in hunks:
        count = 1 + len(hunk.lines) + sum(1 for row in hunk.lines if row.endswith("\n" + NO_NEWLINE))
        found.append(DiffHunk(id=hunk.id, header=hunk.header, first_line=line, line_count=count,
                              first_change=hunk.first_change))
        line += count
    return tuple(found)


def apply_hunks(old_text: str, hunks: Sequence[Hunk], selected: Collection[str]) -> str:
    """``old_text`` with only the ``selected`` hunks (by id) applied."""
    old = _split(old_text)
    out: list[str] = []
    position = 0
    for hunk in hunks:
        if hunk.id not in selected:
            continue
        start, end = hunk.old_slice
        out.extend(old[position:start])
        out.extend(hunk.added)
        position = end
    out.extend(old[position:])
    return "".join(out)


def selection_problem(selection: Mapping[str, Collection[str]], changes: Sequence[FileChange]) -> str:
    """Why ``selection`` (path → kept hunk ids) does not fit what was shown ("" if it does): each
    path must be a change shown with its hunks, each id one of them."""
    shown = {c.path: c for c in changes}
    for path, chosen in selection.items():
        change = shown.get(path)
        if change is None:
            return f"{path!r} was not in the preview"
        if change.truncated or not change.hunks:
            return f"the diff of {path!r} was shortened or has no hunks: it can only be taken whole"
        ids = {h.id for h in change.hunks}
        unknown = [i for i in chosen if not isinstance(i, str) or i not in ids]
        if unknown:
            return f"the selection for {path!r} names hunks that were not shown ({len(ids)} were)"
    return ""


def bind_selection(binding: str, selection: Mapping[str, Collection[str]] | None) -> str:
    """The approval binding extended to the hunks chosen: without a selection it is unchanged."""
    if selection is None:
        return binding
    canonical = json.dumps({p: sorted(set(i)) for p, i in selection.items()}, sort_keys=True)
    return hashlib.sha256(f"{binding}\n{canonical}".encode("utf-8", "surrogatepass")).hexdigest()
