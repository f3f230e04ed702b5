"""Text that every UTF-8 store and JSON reader takes, from what the file system gave.

A file name whose bytes are not UTF-8 reaches Python as lone surrogates (``os.fsdecode``'s
``surrogateescape``: byte ``0xff`` is ``\\udcff``). Such text cannot be written as UTF-8: SQLite
refuses the message that holds it (so a ``list_dir`` of that folder could not be kept in the
conversation) and an HTTP client refuses the request (so the next turn could not be sent). Each
escaped byte is written as ``\\xff`` instead, any other lone surrogate as ``\\udXXX``: visible,
and never mistaken for the name itself.
"""

from __future__ import annotations

from typing import Any

from echo_desk.i18n import Deferred

_ESCAPED_BYTES = range(0xDC80, 0xDD00)
_SURROGATES = range(0xD800, 0xE000)


def storable_text(text: str) -> str:
    """``text`` unchanged when it is valid UTF-8 (nearly always: checked at C speed first). Text
    written for the person too (``i18n.for_person``) stays so, its parameters made storable."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    made = _escaped(text)
    if isinstance(text, Deferred):
        return Deferred(made, text.msgid, {k: storable(v) for k, v in text.params.items()})
    return made


def _escaped(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if code in _ESCAPED_BYTES:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code in _SURROGATES:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def storable(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, tuples, text) with every text made storable; the same
    object when nothing needed it (the usual case: no copy)."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        pairs = [(k, v, storable_text(k) if isinstance(k, str) else k, storable(v)) for k, v in value.items()]
        if all(k is k2 and v is v2 for k, v, k2, v2 in pairs):
            return value
        return {k2: v2 for _k, _v, k2, v2 in pairs}
    if isinstance(value, (list, tuple)):
        items = [storable(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value
