"""Break points in the shown copy of a text, so a word-wrapped label can wrap a long unbroken run.

A label wraps only where the text allows a break (a space, between CJK characters). A server's
field title of 200 letters without a space had none: its label asked to be 2,372 pixels wide,
the form gave it no width at all, and the title was not shown. A zero-width space is a break
point that draws nothing. It goes in the shown copy only, never in what is sent back or named
for a screen reader. It cannot be mistaken for the asker's own: every hidden character of an
asker's text is an escape (``visible``) before this is applied.
"""

from __future__ import annotations

import re
import unicodedata

BREAK_POINT = "\u200b"
#: A run without white space longer than this gets a break point after every this many characters.
LONGEST_RUN = 20

_LONG_RUN = re.compile(rf"\S{{{LONGEST_RUN + 1},}}")


def breakable(text: str) -> str:
    """``text`` with a break point every ``LONGEST_RUN`` characters of each longer unbroken run."""
    return _LONG_RUN.sub(lambda match: _with_break_points(match.group()), text)


def _with_break_points(run: str) -> str:
    out: list[str] = []
    since_break = 0
    for char in run:
        # Never before a combining mark: the line would start with an accent torn from its letter.
        if since_break >= LONGEST_RUN and not unicodedata.category(char).startswith("M"):
            out.append(BREAK_POINT)
            since_break = 0
        out.append(char)
        since_break += 1
    return "".join(out)
