"""Untrusted text made visible: what a person reads is exactly what will be written or run.

A file, a model or an MCP server can put characters in a string that a terminal obeys (ESC
sequences, ``\\r``, C1 controls), that reorder what is drawn (bidi controls), that draw nothing
(zero-width, tag and filler characters, blank-looking letters such as U+2800) or that Qt and
JavaScript treat as a line break although Python's ``split("\\n")`` and ``patch`` do not
(U+2028, U+2029, U+0085, ``\\v``, ``\\f``). Every such character is shown as a visible escape,
``⟨ESC⟩`` or ``⟨U+2029⟩``, never obeyed and never dropped.

Line ends: in ``visible(text)`` a ``\\n`` stays a real line break (multi-line text is shown as
lines, numbered as files, shells and unified diffs number them: on ``\\n`` only) and a ``\\r``
directly before it is part of that line end (CRLF); a ``\\r`` anywhere else is ``⟨CR⟩``. With
``one_line=True`` (names, titles, a tab label) ``\\n`` is ``⟨LF⟩`` too. A ``\\t`` stays a tab in
both: it only moves the cursor forward and hides nothing.

No Qt here: the terminal, the MCP code and the widgets all use it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

#: Short names for the controls people know; every other hidden character is ``U+XXXX``.
_NAMES = {
    0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0A: "LF", 0x0B: "VT", 0x0C: "FF", 0x0D: "CR",
    0x1B: "ESC", 0x7F: "DEL", 0x85: "NEL",
}

#: Letters and symbols that draw as blank space although they are not spaces: Hangul fillers,
#: the braille blank, invisible combining marks, Khmer inherent vowels, Mongolian selectors,
#: the object replacement character (Qt draws nothing for it in plain text).
BLANK_LOOKING = frozenset({
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F,
    0x2800, 0x3164, 0xFFA0, 0xFFFC,
})
#: Categories drawn as nothing, moved about, or as a line break: controls, format (bidi,
#: zero-width, tags, soft hyphen, BOM), surrogates, private use, unassigned, line/paragraph
#: separators; and spaces other than U+0020 (a no-break space inside a command joins two words).
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
#: Emoji presentation selectors after a non-ASCII symbol are ordinary (❤️); anywhere else, and
#: every other variation selector, they can carry data invisibly.
_EMOJI_SELECTORS = frozenset({0xFE0E, 0xFE0F})

#: Anything outside printable ASCII, tab and newline may need a look.
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")
_CANDIDATE_CRLF = re.compile(r"\r\n|[^\t\n\x20-\x7e]")


def is_hidden(ch: str, previous: str = "") -> bool:
    """Whether ``ch`` (one character) must be shown as an escape; ``\\n`` and ``\\t`` are not."""
    code = ord(ch)
    if code in (0x09, 0x0A, 0x20):
        return False
    if code in BLANK_LOOKING:
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return not (code in _EMOJI_SELECTORS and previous > "\x7f" and not is_hidden(previous))
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES


def escape_char(ch: str, *, ascii_only: bool = False) -> str:
    """The visible form of one hidden character: ``⟨ESC⟩``, ``⟨U+202E⟩`` (``\\x1b``, ``\\u202e``
    with ``ascii_only``, for a terminal that cannot show ⟨⟩)."""
    code = ord(ch)
    if ascii_only:
        if code <= 0xFF:
            return f"\\x{code:02x}"
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return f"⟨{_NAMES.get(code) or f'U+{code:04X}'}⟩"


def visible(text: str, *, one_line: bool = False, ascii_only: bool = False) -> str:
    """``text`` with every hidden character replaced by its visible escape (see the module doc)."""

    def replace(match: re.Match[str]) -> str:
        found = match.group()
        if found == "\r\n":
            return "\n"
        start = match.start()
        previous = text[start - 1] if start else ""
        if is_hidden(found, previous):
            return escape_char(found, ascii_only=ascii_only)
        return found

    shown = (_CANDIDATE_CRLF if not one_line else _CANDIDATE).sub(replace, text)
    if one_line:
        shown = shown.replace("\n", escape_char("\n", ascii_only=ascii_only))
    return shown


#: Spaces and tabs that end a name in a path (before a "/" or at the end).
_NAME_END_SPACE = re.compile(r"[ \t]+(?=/|$)")


def visible_path(path: str, *, ascii_only: bool = False) -> str:
    """A path on one line, as ``visible`` shows it, and the spaces or tabs that end one of its
    names shown too: ``notes.txt `` is another file than ``notes.txt`` but draws the same at the
    end of a line (and ``dir /x`` is easily read as ``dir/x``)."""
    shown = visible(path, one_line=True, ascii_only=ascii_only)
    return _NAME_END_SPACE.sub(lambda m: "".join(escape_char(c, ascii_only=ascii_only) for c in m.group()), shown)


def path_hides_text(path: str) -> bool:
    """Whether ``path`` holds a hidden character or a name ending in white space (``visible_path``)."""
    return has_hidden(path) or _NAME_END_SPACE.search(path) is not None


def has_hidden(text: str) -> bool:
    """Whether ``text`` holds a character that ``visible`` escapes (a CRLF line end does not count)."""
    for match in _CANDIDATE_CRLF.finditer(text):
        found = match.group()
        if found != "\r\n" and is_hidden(found, text[match.start() - 1] if match.start() else ""):
            return True
    return False


def any_hidden(value: Any) -> bool:
    """``has_hidden`` over every string of a JSON value, keys included."""
    if isinstance(value, str):
        return has_hidden(value)
    if isinstance(value, dict):
        return any(any_hidden(k) or any_hidden(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(any_hidden(v) for v in value)
    return False


def visible_json(value: Any, *, indent: int | None = None) -> str:
    """JSON text of ``value`` that is still valid JSON with the same value, every hidden
    character written as a ``\\uXXXX`` escape (so a terminal or a text box shows, never obeys, it)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)

    def replace(match: re.Match[str]) -> str:
        found = match.group()
        start = match.start()
        if not is_hidden(found, text[start - 1] if start else ""):
            return found
        code = ord(found)
        if code > 0xFFFF:  # JSON spells astral characters as a surrogate pair
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
        return f"\\u{code:04x}"

    return _CANDIDATE.sub(replace, text)


def split_lines(text: str) -> list[str]:
    """Lines as files, shells and unified diffs count them: split on ``\\n`` only (a U+2029 or a
    lone ``\\r`` inside a line stays inside it), each made visible."""
    lines = text.split("\n")
    last = len(lines) - 1
    # A "\r" before the "\n" is that line's CRLF end, not hidden content.
    return [visible(line[:-1] if i < last and line.endswith("\r") else line) for i, line in enumerate(lines)]

