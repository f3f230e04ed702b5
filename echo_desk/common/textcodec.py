"""Decode a file's bytes to text and back without changing a byte the edit did not touch.

Detects the encoding (UTF-8, UTF-8 with BOM, UTF-16 with BOM or by its NUL pattern, latin-1
as the lossless fallback) and the dominant line ending. Text is kept with its own line
endings; callers convert what the model sends with ``to_newline``.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from echo_desk.i18n import N_, for_person, quoted_later
from echo_desk.tools import ErrorKind, ToolError


class BinaryFile(ToolError):
    def __init__(self, what: object) -> None:
        super().__init__(for_person(
            f"{what} looks like a binary file (not text); the file tools only read and change text",
            N_("{path} looks like a binary file (not text); the file tools only read and change text."),
            path=str(what)), kind=ErrorKind.BUSINESS)


@dataclass(frozen=True)
class TextFormat:
    """How a text file is stored: ``encoding`` (a Python codec), ``bom`` bytes, ``newline``."""

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"

    @property
    def label(self) -> str:
        names = {"utf-8": "UTF-8", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE", "latin-1": "latin-1"}
        name = names.get(self.encoding, self.encoding)
        if self.bom:
            name += " with BOM"
        if self.encoding == "latin-1":
            name += " (fallback: not valid UTF-8)"
        return name

    @property
    def newline_label(self) -> str:
        return {"\n": "LF", "\r\n": "CRLF", "\r": "CR"}[self.newline]


_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_CONTROL = frozenset(chr(c) for c in (*range(0x00, 0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)))


def _textual(text: str) -> bool:
    """Text has (almost) no C0 control characters besides tab, newlines, form feed and escape."""
    sample = text[:65536]
    return sum(1 for ch in sample if ch in _CONTROL) <= len(sample) * 0.02


def detect_newline(text: str) -> str:
    """The most common line ending; LF for a text without any."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    best = max((crlf, "\r\n"), (lf, "\n"), (cr, "\r"))
    return best[1] if best[0] else "\n"


def _utf16_without_bom(data: bytes) -> str | None:
    if len(data) < 2 or len(data) % 2:
        return None
    even = data[0::2].count(0)
    odd = data[1::2].count(0)
    half = len(data) // 2
    if odd > half * 0.3 and even < half * 0.05:
        return "utf-16-le"
    if even > half * 0.3 and odd < half * 0.05:
        return "utf-16-be"
    return None


def decode(data: bytes, what: object = "the file") -> tuple[str, TextFormat]:
    """Text and format of ``data``; raises ``BinaryFile`` for anything that is not text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                raise BinaryFile(what) from exc
            return text, TextFormat(encoding, bom, detect_newline(text))
    if b"\x00" in data:
        guess = _utf16_without_bom(data)
        if guess is None:
            raise BinaryFile(what)
        try:
            text = data.decode(guess)
        except UnicodeDecodeError as exc:
            raise BinaryFile(what) from exc
        if not _textual(text):
            raise BinaryFile(what)
        return text, TextFormat(guess, b"", detect_newline(text))
    try:
        text = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        encoding = "latin-1"
    if not _textual(text):
        raise BinaryFile(what)
    return text, TextFormat(encoding, b"", detect_newline(text))


def encode(text: str, fmt: TextFormat, what: object = "the file") -> bytes:
    """Bytes for ``text`` in ``fmt``; a character the encoding cannot hold is a clear error."""
    try:
        return fmt.bom + text.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        bad = text[exc.start:exc.end]
        raise ToolError(for_person(
            f"{what} is stored as {fmt.label}, which cannot hold {bad!r}; nothing was written",
            N_("{path} is stored as {encoding}, which cannot hold {text}; nothing was written."),
            path=str(what), encoding=fmt.label, text=quoted_later(bad)), kind=ErrorKind.BUSINESS) from exc


def to_newline(text: str, newline: str) -> str:
    """``text`` with every line ending (LF, CRLF or CR) turned into ``newline``."""
    normalized = text.replace("\r\n", "\n").replace("\r", "\n")
    return normalized if newline == "\n" else normalized.replace("\n", newline)


def split_keep(text: str) -> list[str]:
    """Lines with their ``\\n`` kept. Only LF ends a line (a CR stays with it, as in ``patch``)."""
    return _LINE.findall(text)
