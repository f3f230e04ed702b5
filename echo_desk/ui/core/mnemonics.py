"""Alt-letter keys (mnemonics) in the text of buttons, tabs and labelled fields.

Qt reads ``&x`` in such text as "Alt+X presses this" and shows the letter underlined; Chinese
labels put the letter after the words, ``保存(&S)``. Text from outside the catalog (a path, an
app's name) must not grow a letter, and a name read aloud must not say the ampersand.
"""

from __future__ import annotations

import re

_MARK = re.compile(r"&(.)", re.DOTALL)


def literal(text: str) -> str:
    """``text`` shown as it is where ``&`` marks a letter (a path, an app's name)."""
    return text.replace("&", "&&")


def without_mnemonic(text: str) -> str:
    """``text`` as a screen reader should say it: the marks gone, ``&&`` back to ``&``."""
    return _MARK.sub(r"\1", text)

