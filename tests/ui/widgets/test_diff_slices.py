"""The diff is parsed a slice at a time (the approval dialog never holds the UI thread for the
whole of a 10,000-line diff): any slicing gives the same lines, numbers and hidden-text verdict."""

from __future__ import annotations

import random

from echo_desk.common.visible_text import has_hidden
from echo_desk.ui.widgets.diffparse import UnifiedParser, parse_unified

_PIECES = ["a", " ", "+", "-", "@@ -1,3 +1,4 @@", "\r", "\u202e", "\u2029", "\x0b", "\\", "--- a", "+++ b", "é",
           "\u200b", "\r\n", "\ufe0f", "\U0001f44d"]


def test_any_slicing_parses_like_the_whole_diff_at_once() -> None:
    rnd = random.Random(17)
    for trial in range(3000):
        lines = ["".join(rnd.choice(_PIECES) for _ in range(rnd.randint(0, 6))) for _ in range(rnd.randint(0, 30))]
        diff = "\n".join(lines) + rnd.choice(["", "\n", "\r\n"])
        whole = UnifiedParser(diff)
        whole.feed(1 << 30)
        sliced = UnifiedParser(diff)
        while not sliced.done:
            assert sliced.feed(rnd.randint(1, 5)) > 0
        a, b = whole.parsed, sliced.parsed
        assert (a.kinds, a.old, a.new, a.lines) == (b.kinds, b.old, b.new, b.lines), (trial, diff)
        assert parse_unified(diff).lines == a.lines
        assert sliced.hides_text == whole.hides_text == has_hidden(diff), (trial, diff)


def test_a_crlf_diff_keeps_its_numbers_and_hides_nothing() -> None:
    diff = "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n-old\r\n+new\r\n same\r\n"
    parser = UnifiedParser(diff)
    while not parser.done:
        parser.feed(2)
    assert parser.parsed.lines[3:] == ["-old", "+new", " same"]
    assert parser.parsed.old[3:] == [1, None, 2] and parser.parsed.new[3:] == [None, 1, 2]
    assert not parser.hides_text
