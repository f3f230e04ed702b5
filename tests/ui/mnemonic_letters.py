"""Alt letters as Qt reads them, for the tests that look for two things sharing one."""

from __future__ import annotations


def mnemonic(text: str) -> str | None:
    """The letter Alt presses for ``text`` as Qt reads it (``&&`` is a literal ampersand)."""
    i = 0
    while i < len(text) - 1:
        if text[i] == "&":
            if text[i + 1] != "&":
                return text[i + 1].lower()
            i += 1
        i += 1
    return None
