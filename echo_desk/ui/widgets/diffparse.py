"""Unified diff → lines with kinds and old/new line numbers (pure Python, no Qt), every line in
its visible form (``common.visible_text``). For display only: which lines form which hunk comes
from the engine (``FileChange.hunks``), never from the ``@@`` lines read here.

Kept as parallel lists rather than one object per line: a 10,000-line diff must be ready in a
few milliseconds for the approval dialog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from echo_desk.common.visible_text import visible

CONTEXT, ADD, DELETE, HUNK, META, FILLER = "c", "+", "-", "@", "m", " "

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass
class ParsedDiff:
    kinds: list[str] = field(default_factory=list)
    old: list[int | None] = field(default_factory=list)
    new: list[int | None] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    #: For a side-by-side column: the row of the unified diff each row shows (a filler row, its
    #: partner's). Empty for the unified diff itself (row ``n`` is line ``n`` of the diff).
    source: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def added(self) -> int:
        return self.kinds.count(ADD)

    @property
    def deleted(self) -> int:
        return self.kinds.count(DELETE)

    def append(self, kind: str, old: int | None, new: int | None, line: str, source: int = -1) -> None:
        self.kinds.append(kind)
        self.old.append(old)
        self.new.append(new)
        self.lines.append(line)
        self.source.append(source)


def parse_unified(diff: str) -> ParsedDiff:
    """Parse a unified diff; lines outside hunks (headers, notes) become ``META``."""
    parser = UnifiedParser(diff)
    while not parser.done:
        parser.feed(1 << 30)
    return parser.parsed


class UnifiedParser:
    """``parse_unified`` a slice at a time, so a 10,000-line diff never holds the UI thread
    for long: ``feed(n)`` parses up to ``n`` more lines into ``parsed`` (which only grows).
    ``hides_text`` tells whether a line seen so far held a character ``visible`` escapes."""

    def __init__(self, diff: str) -> None:
        self.parsed = ParsedDiff()
        # Lines end at "\n" only, as the file tools write them and ``patch`` reads them; a
        # U+2029, U+2028, U+0085, lone CR, VT or FF inside a line is shown there as ⟨U+2029⟩,
        # never as a new numbered line (Qt would start one), and controls and bidi characters too.
        # The text is cut a slice at a time too (no split of the whole diff up front).
        self._text = diff
        self._pos = 0
        self._old_no = self._new_no = 0
        self._in_hunk = False
        self.hides_text = False

    @property
    def done(self) -> bool:
        return self._pos >= len(self._text)

    def feed(self, count: int) -> int:
        """Parse up to ``count`` more lines; returns how many were parsed."""
        text, start = self._text, self._pos
        if start >= len(text) or count <= 0:
            return 0
        end = start
        for _ in range(count):
            newline = text.find("\n", end)
            end = len(text) if newline == -1 else newline + 1
            if end >= len(text):
                break
        # The slice keeps its line ends, so a CRLF stays a line end and not a hidden CR.
        chunk = text[start:end]
        shown_text = visible(chunk)
        # ``visible`` turns a CRLF line end into "\n" and changes nothing else but hidden characters.
        self.hides_text = self.hides_text or shown_text != chunk.replace("\r\n", "\n")
        shown = shown_text.split("\n")
        if shown_text.endswith("\n"):
            shown.pop()
        out = self.parsed
        kinds, olds, news, texts = out.kinds, out.old, out.new, out.lines
        old_no, new_no, in_hunk = self._old_no, self._new_no, self._in_hunk
        for raw in shown:
            first = raw[:1]
            if first == "@" and (m := _HUNK.match(raw)):
                old_no, new_no = int(m.group(1)), int(m.group(2))
                in_hunk = True
                kind, o, n = HUNK, None, None
            elif in_hunk and first == "+" and not raw.startswith("+++ "):
                kind, o, n = ADD, None, new_no
                new_no += 1
            elif in_hunk and first == "-" and not raw.startswith("--- "):
                kind, o, n = DELETE, old_no, None
                old_no += 1
            elif in_hunk and (first == " " or raw == ""):
                kind, o, n = CONTEXT, old_no, new_no
                old_no += 1
                new_no += 1
            else:
                # "\ No newline at end of file", file headers, anything unexpected: shown as-is.
                in_hunk = in_hunk and first == "\\"
                kind, o, n = META, None, None
            kinds.append(kind)
            olds.append(o)
            news.append(n)
            texts.append(raw)
        self._old_no, self._new_no, self._in_hunk = old_no, new_no, in_hunk
        self._pos = end
        return len(shown)


def side_by_side(parsed: ParsedDiff) -> tuple[ParsedDiff, ParsedDiff]:
    """Align a parsed diff into left (old) and right (new) columns with filler rows."""
    left, right = ParsedDiff(), ParsedDiff()
    dels: list[int] = []
    adds: list[int] = []

    def flush() -> None:
        for k in range(max(len(dels), len(adds))):
            i = dels[k] if k < len(dels) else adds[k]
            j = adds[k] if k < len(adds) else dels[k]
            if k < len(dels):
                left.append(DELETE, parsed.old[i], None, parsed.lines[i][1:], i)
            else:
                left.append(FILLER, None, None, "", i)
            if k < len(adds):
                right.append(ADD, None, parsed.new[j], parsed.lines[j][1:], j)
            else:
                right.append(FILLER, None, None, "", j)
        dels.clear()
        adds.clear()

    for i, kind in enumerate(parsed.kinds):
        if kind == DELETE:
            if adds:  # a deletion after additions starts a new change block
                flush()
            dels.append(i)
        elif kind == ADD:
            adds.append(i)
        else:
            flush()
            text = parsed.lines[i][1:] if kind == CONTEXT else parsed.lines[i]
            left.append(kind, parsed.old[i], None, text, i)
            right.append(kind, None, parsed.new[i], text, i)
    flush()
    return left, right
