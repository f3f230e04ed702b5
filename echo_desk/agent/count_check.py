"""Does the answer give a number that contradicts what a tool counted?

A small model reads a file of 18 lines (a header and 17 rows) and answers "16 rows". The engine
cannot know what the person meant to count, but it knows what the tools counted
(``tools.results.Counted``: a file's lines, a listing's entries, a search's matches). When the
answer states none of those numbers and gives one just beside one of them instead, the answer
is flagged for the person to check — the number is the model's, the count is the tool's.

Only numbers are compared, never words, so it works in any language. It is kept conservative:
a number the request or a tool result already holds is the model copying, not counting (except
a number opening a line of the result, like a row's id); a
version ("1.4.3"), a decimal, a time, a name ("B12") and a list's "1." are not counts; a count
under 2 is not checked; a file's lines also stand for the same lines without the first (a
header); and an answer that states any counted number anywhere is not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from echo_desk.agent.envelope import Envelope
from echo_desk.i18n import N_, deferred
from echo_desk.tools.results import COUNTS_KEY, Counted

#: How far a number may be from a count to be read as a miscount of it (farther: something else).
NEAR = 1
#: Counts below this are not checked (a "1" or "2" in an answer is too often about something else).
SMALLEST_COUNT = 2

# An integer standing alone: not inside a name ("B12"), a version or decimal ("1.4.3", "0.5"), a
# time ("15:30"), a date or a range ("2024-01-02", "3/4"). Only ASCII letters count as "inside a
# name": "有6行" and "6行" are counts.
_NUMBER = re.compile(r"(?<![A-Za-z0-9.,:/\-_])(\d+)(?![0-9]|[.,:/\-]\d|[A-Za-z_])")
# "1." or "2)" opening a line: a list's numbering, not a count.
_LIST_MARK = re.compile(r"^\s*(\d+)[.)]\s", re.MULTILINE)
# A number opening a line of a tool's result: a row's id or a line's number ("16,item16").
_LINE_START = re.compile(r"^\s*(\d+)", re.MULTILINE)


@dataclass(frozen=True)
class CountMismatch:
    """The answer says ``claimed`` where ``tool`` counted ``found`` of ``counted``."""

    tool: str
    counted: Counted
    found: int
    claimed: int

    def describe(self) -> str:
        """English, for logs and the CLI's JSON; ``note`` is what a person reads."""
        after_first = f" ({self.found - 1} after the first)" if self.counted is Counted.LINES else ""
        return (f"the answer says {self.claimed}, but {self.tool} counted {self.found} {self.counted.value}"
                f"{after_first}; check it")

    def note(self) -> str:
        """The note under the answer, in the person's language (re-translatable)."""
        return deferred(_MISMATCH_NOTES[self.counted], claimed=self.claimed, found=self.found,
                        rest=max(self.found - 1, 0))


#: One sentence per thing counted (whole sentences translate better than a sentence with a
#: translated word put in it).
_MISMATCH_NOTES = {
    # A file's first line is often a header: the rows under it are said too (the count check
    # reads an answer that far off as a miscount of either).
    Counted.LINES: N_("Check this answer: it says {claimed}, but the text that was read has {found} lines "
                      "({rest} after the first)."),
    Counted.ENTRIES: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} entries."),
    Counted.FILES: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} files."),
    Counted.FOLDERS: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} folders."),
    Counted.MATCHES: N_("Check this answer: it says {claimed}, but the search found {found} matches."),
}


def numbers_in(text: str) -> list[int]:
    """The integers ``text`` states, as counts could be (see ``_NUMBER``), list numbering left out."""
    marks = {m.start(1) for m in _LIST_MARK.finditer(text)}
    return [int(m.group(1)) for m in _NUMBER.finditer(text) if m.start(1) not in marks and len(m.group(1)) < 10]


def quoted_in(text: str) -> set[int]:
    """The numbers a tool result holds that an answer would be quoting, not counting: all but
    those opening a line (a row's id: "16,item16" in an 18-line file is not the answer "16")."""
    leading = {m.start(1) for m in _LINE_START.finditer(text)}
    return {int(m.group(1)) for m in _NUMBER.finditer(text) if m.start(1) not in leading and len(m.group(1)) < 10}


def _counts(envelopes: Iterable[Envelope]) -> list[tuple[str, Counted, int]]:
    found: list[tuple[str, Counted, int]] = []
    for envelope in envelopes:
        counts = envelope.metadata.get(COUNTS_KEY) if envelope.ok else None
        if not isinstance(counts, dict):
            continue
        for name, value in counts.items():
            try:
                kind = Counted(name)
            except ValueError:
                continue
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                found.append((envelope.tool, kind, value))
    return found


def _readings(tool: str, kind: Counted, value: int) -> set[int]:
    """The numbers that state this count: a file's lines also without its first (a header)."""
    return {value, value - 1} if kind is Counted.LINES else {value}


def count_mismatch(answer: str, request: str, envelopes: Sequence[Envelope]) -> CountMismatch | None:
    """The first number of ``answer`` that misses a tool's count by ``NEAR`` while the answer
    states no counted number at all; ``None`` when nothing contradicts (or nothing was counted)."""
    counts = _counts(envelopes)
    if not counts or not answer:
        return None
    stated = numbers_in(answer)
    readings = set().union(*(_readings(*c) for c in counts))
    if any(n in readings for n in stated):
        return None
    copied = set(numbers_in(request))
    for envelope in envelopes:
        copied |= quoted_in(envelope.content)
    for number in stated:
        if number in copied:
            continue
        for tool, kind, value in counts:
            if value >= SMALLEST_COUNT and any(abs(number - r) <= NEAR for r in _readings(tool, kind, value)):
                return CountMismatch(tool=tool, counted=kind, found=value, claimed=number)
    return None
