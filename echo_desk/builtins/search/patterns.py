"""Patterns from a model or a workspace, matched in linear time.

``search_files`` runs without asking (it only reads), so its regular expressions and globs are
untrusted input. Python's ``re`` backtracks: ``(a|a)*b`` over 27 characters, or the glob
``*n*n*n*n*n*n*n*n*n*n*n*nQ`` over a 43-character name, runs for minutes while holding the GIL,
which freezes the whole app and keeps the tool timeout from firing. RE2 (``google-re2``)
matches in time linear in the text and releases the GIL while it does, so these patterns are
compiled with it. RE2 has no backreferences, lookaround, atomic groups or possessive
repeats: a pattern using them is refused with a clear message instead of being run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import re2

#: RE2's memory budget for one pattern; past it RE2 refuses the pattern (no slow fallback).
MAX_PATTERN_MEMORY = 64 * 1024 * 1024

#: Constructs RE2 cannot run, as (what RE2's message contains, what to tell the model).
_UNSUPPORTED_HINTS = (
    ("(?=", "lookahead '(?=...)' is not supported"),
    ("(?!", "negative lookahead '(?!...)' is not supported"),
    ("(?<=", "lookbehind '(?<=...)' is not supported"),
    ("(?<!", "negative lookbehind '(?<!...)' is not supported"),
    ("(?>", "atomic groups '(?>...)' are not supported"),
    ("(?P=", "backreferences '(?P=name)' are not supported"),
    ("invalid perl operator: (?P", "backreferences '(?P=name)' are not supported"),
    ("\\Z", "use '\\z' (end of text) instead of '\\Z'"),
    ("bad repetition operator: *+", "possessive repeats ('*+', '++', '?+') are not supported"),
    ("bad repetition operator: ++", "possessive repeats ('*+', '++', '?+') are not supported"),
    ("bad repetition operator: ?+", "possessive repeats ('*+', '++', '?+') are not supported"),
)


class PatternError(ValueError):
    """A pattern that cannot be run; the message says why in terms the model can act on."""


def _options(*, case_sensitive: bool = True) -> Any:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.max_mem = MAX_PATTERN_MEMORY
    options.log_errors = False  # the error comes back to the caller, not to our stderr
    return options


def _explain(pattern: str, exc: Exception) -> str:
    raw = exc.args[0] if exc.args else exc
    message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    for needle, hint in _UNSUPPORTED_HINTS:
        if needle in message:
            return f"{hint} (patterns run on a linear-time engine, RE2)"
    if "invalid escape sequence: \\" in message and message[-1:].isdigit():
        return "backreferences ('\\1') are not supported (patterns run on a linear-time engine, RE2)"
    if "pattern too large" in message:
        return "the pattern is too large to run"
    return message


def compile_regex(pattern: str, *, case_sensitive: bool = True) -> Any:
    """A compiled RE2 pattern (``search``/``match``/``fullmatch`` as in ``re``).

    Raises ``PatternError`` for invalid patterns and for constructs RE2 cannot run.
    """
    try:
        return re2.compile(pattern, _options(case_sensitive=case_sensitive))
    except re2.error as exc:
        raise PatternError(_explain(pattern, exc)) from exc


def glob_regex_text(pattern: str) -> str:
    """The RE2 syntax of a glob: ``*`` and ``?`` stay inside one folder, ``**`` crosses
    folders, ``[...]`` is a class (``[!...]`` negated); the whole name must match."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re2.escape(ch))
        i += 1
    return "(?s)" + "".join(out) + "\\z"


def compile_glob(pattern: str) -> Any:
    """A glob as an RE2 pattern; use its ``match`` (anchored at both ends)."""
    try:
        return re2.compile(glob_regex_text(pattern), _options())
    except re2.error as exc:
        raise PatternError(f"the glob {pattern!r} is not valid: {_explain(pattern, exc)}") from exc


class LineSearch:
    """A regular expression searched in each line of a text, as ``grep`` does, in one pass.

    Searching the whole text once (multi-line mode, never across a newline) finds the same
    lines as searching line by line, at a fraction of the per-call cost. ``\\A`` and ``\\z``
    mean the start and end of each line, so a pattern using them is searched line by line.
    """

    def __init__(self, pattern: str, *, case_sensitive: bool = True) -> None:
        self._per_line = compile_regex(pattern, case_sensitive=case_sensitive)
        self._whole: Any = None
        if "\\A" not in pattern and "\\z" not in pattern:
            options = _options(case_sensitive=case_sensitive)
            options.never_nl = True
            self._whole = re2.compile("(?m)(?:" + pattern + ")", options)

    def lines(self, text: str) -> Iterator[tuple[int, str]]:
        """``(line number, line without its ending)`` for each line with a match, in order.

        Only LF ends a line; a CR before it is not part of the line."""
        data = text.replace("\r\n", "\n").encode("utf-8", "surrogatepass")
        if self._whole is None:
            pieces = data.split(b"\n")
            if pieces[-1] == b"":  # the text ends with a newline, or is empty: no line after it
                pieces.pop()
            for number, line in enumerate(pieces, start=1):
                if self._per_line.search(line):
                    yield number, line.decode("utf-8", "surrogatepass")
            return
        number, counted_to, pos = 1, 0, 0
        while pos <= len(data):
            found = self._whole.search(data, pos)
            if found is None:
                return
            start = data.rfind(b"\n", 0, found.start()) + 1
            end = data.find(b"\n", found.start())
            end = len(data) if end < 0 else end
            number += data.count(b"\n", counted_to, start)
            counted_to = start
            if start < len(data):  # not the empty "line" after a final newline
                yield number, data[start:end].decode("utf-8", "surrogatepass")
            pos = end + 1
