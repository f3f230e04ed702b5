"""Code colouring with Pygments: the lexer of the fence's language (guessed when absent),
token families mapped to the palette's syntax roles (``ui.theme``).

Pure text in, ``(start, length, role)`` spans out: the Markdown renderer applies them to its
document, and tests can check the colouring without painting anything. Pygments is imported on
first use (the app readies it on a worker after the first frame: ``preload``), not with the window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.lexer import Lexer


@lru_cache(maxsize=1)
def _roles() -> tuple[tuple[object, str], ...]:
    """Pygments token family → palette role, most specific first."""
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    return (
        (Comment, "syn_comment"),
        (String, "syn_string"),
        (Number, "syn_number"),
        (Keyword.Type, "syn_type"),
        (Keyword, "syn_keyword"),
        (Name.Builtin, "syn_type"),
        (Name.Function, "syn_function"),
        (Name.Class, "syn_type"),
        (Name.Decorator, "syn_function"),
        (Operator.Word, "syn_keyword"),
    )

#: Guessing on a few characters is noise; below this the code stays uncoloured.
_MIN_GUESS_CHARS = 24


@dataclass(frozen=True)
class Span:
    """``length`` characters from ``start`` drawn in palette ``role``."""

    start: int
    length: int
    role: str


def _role(token: object) -> str | None:
    for family, role in _roles():
        if token in family:  # type: ignore[operator]
            return role
    return None


@lru_cache(maxsize=64)
def lexer_for(language: str) -> Lexer | None:
    """The lexer named by a fence's info string (``python``, ``js``, ``sh`` …), or ``None``."""
    name = language.strip().split()[0].lower() if language.strip() else ""
    if not name:
        return None
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


#: Signatures for a fence without a language, checked in order; first match wins. Pygments' own
#: ``guess_lexer`` calls short Python "Tera Term macro", so a guess asks for a clear sign.
_SIGNATURES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.M), name) for p, name in (
    (r"\A#!.*\b(ba|z)?sh\b", "bash"),
    (r"\A#!.*\bpython", "python"),
    (r"\A\s*[\[{]\s*(\"|\]|}|\d|true|false|null)", "json"),
    (r"^\s*#include\s*[<\"]", "cpp"),
    (r"^package \w+\s*$|^func \w*\(", "go"),
    (r"^\s*(pub )?fn \w+|let mut |println!\(", "rust"),
    (r"^\s*(def|class) \w+.*:\s*$|^\s*(from \S+ )?import \w+(\.\w+)*( as \w+)?\s*$|^\s*print\(", "python"),
    (r"^\s*(const|let|var) \w+ *=|=>|^\s*function\b|console\.log|require\(", "javascript"),
    (r"^\s*(public |private )?(static )?(class|interface) \w+\s*\{", "java"),
    (r"^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE TABLE|WITH)\b", "sql"),
    (r"^\s*<(!DOCTYPE|html|div|head|body)\b", "html"),
    (r"^\s*\$ |^\s*(sudo|cd|ls|grep|echo|export|pip|npm|git|apt-get|mkdir|cat|curl)\s", "bash"),
    (r"^\s*\[[\w.-]+\]\s*$", "toml"),
    (r"^\s*[\w-]+:\s*(\S.*)?$", "yaml"),
))


@lru_cache(maxsize=512)
def _guess(code: str) -> Lexer | None:
    if len(code.strip()) < _MIN_GUESS_CHARS:
        return None
    sample = code[:2000]
    for pattern, name in _SIGNATURES:
        if pattern.search(sample):
            return lexer_for(name)
    return None  # no clear sign: plain, rather than wrong colours


def language_name(language: str, code: str) -> str:
    """The language to show above a code block: the fence's own word, else the guessed one."""
    if language.strip():
        return language.strip().split()[0]
    lexer = _guess(code)
    return lexer.name if lexer is not None else ""


@lru_cache(maxsize=1024)
def spans(code: str, language: str = "") -> tuple[Span, ...]:
    """Coloured runs of ``code``; offsets count Python characters of ``code`` itself."""
    lexer = lexer_for(language) if language.strip() else _guess(code)
    if lexer is None:
        return ()
    from pygments.token import Token

    out: list[Span] = []
    for start, token, value in lexer.get_tokens_unprocessed(code):
        role = _role(token) if token is not Token.Text else None
        if role is not None and value:
            out.append(Span(start, len(value), role))
    return tuple(out)


#: Lexers worth having ready before the first answer streams in: the fence names agents write
#: most and every language a guess can choose.
COMMON_LANGUAGES = ("python", "javascript", "typescript", "bash", "json", "yaml", "toml", "c", "cpp", "rust",
                    "go", "java", "sql", "html", "css", "diff")


def preload(languages: tuple[str, ...] = COMMON_LANGUAGES) -> int:
    """Import and compile the lexers of ``languages`` (the first use of each costs tens of ms:
    module import and regex compilation). Thread-safe; returns how many are ready."""
    ready = 0
    for name in languages:
        lexer = lexer_for(name)
        if lexer is not None:
            for _token in lexer.get_tokens_unprocessed("x = 1\n"):
                pass
            ready += 1
    return ready
