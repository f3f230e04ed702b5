"""Programs inside arguments: whether a sed script or an awk program only reads and prints.

Both checks fail closed: a script they cannot follow to the end is not harmless. sed (GNU): the
``e`` command and ``s///e`` run a shell, ``w``/``W`` and ``s///w`` write files, ``r``/``R``
read any file. awk: ``system()``, pipes (``|``, ``|&``), ``getline``, output redirection in a
``print``, and gawk's ``@`` (``@load``, ``@include``, indirect calls).
"""

from __future__ import annotations

import re

_SED_SIMPLE = frozenset("=dDgGhHlnNpPxzF}")
_SED_LABELLED = frozenset("bBtT:")
_SED_TEXT = frozenset("aic")
_SED_S_FLAGS = frozenset("gpiImM0123456789")
_SED_LABEL_ENDS = ";\n \t\r\v\f"


def sed_is_harmless(script: str) -> bool:
    """Whether a GNU sed script only edits the stream (no command runs, no file is written or read)."""
    try:
        return _Sed(script).harmless()
    except (IndexError, ValueError):
        return False


class _Sed:
    def __init__(self, script: str) -> None:
        self.s = script
        self.i = 0

    def skip(self, chars: str) -> None:
        while self.i < len(self.s) and self.s[self.i] in chars:
            self.i += 1

    def harmless(self) -> bool:
        s = self.s
        while True:
            self.skip(" \t\n;")
            if self.i >= len(s):
                return True
            if s[self.i] == "#":
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
                continue
            self.addresses()
            self.skip(" \t")
            while s[self.i] == "!":
                self.i += 1
                self.skip(" \t")
            c = s[self.i]
            self.i += 1
            if c == "{":
                continue  # a block: its commands follow at once
            if c in _SED_SIMPLE:
                self.number()
            elif c in "qQlL":
                self.number()
            elif c in _SED_LABELLED or c == "v":
                # GNU sed's label (and ``v``'s version) ends at whitespace too: ``:x w FILE``
                # is a label and a ``w`` command. What follows must end the command.
                self.skip(" \t")
                self.until(_SED_LABEL_ENDS)
            elif c in _SED_TEXT:
                self.text()
                continue
            elif c == "s":
                if not self.substitute():
                    return False
            elif c == "y":
                delimiter = s[self.i]
                self.i += 1
                self.delimited(delimiter)
                self.delimited(delimiter)
            else:
                return False  # e, w, W, r, R and anything not known
            self.skip(" \t")
            if self.i < len(s) and s[self.i] not in ";\n}#":
                return False

    def number(self) -> None:
        self.skip(" \t")
        self.skip("0123456789")

    def until(self, ends: str) -> None:
        while self.i < len(self.s) and self.s[self.i] not in ends:
            self.i += 1

    def text(self) -> None:
        """``a``/``i``/``c``: the text runs to the end of the line (a backslash continues it)."""
        s = self.s
        while self.i < len(s) and s[self.i] != "\n":
            self.i += 2 if s[self.i] == "\\" else 1

    def addresses(self) -> None:
        self.address()
        self.skip(" \t")
        if self.i < len(self.s) and self.s[self.i] == ",":
            self.i += 1
            self.skip(" \t")
            if self.s[self.i] in "+~":
                self.i += 1
            self.address()

    def address(self) -> None:
        s = self.s
        c = s[self.i]
        if c in "0123456789":
            self.skip("0123456789")
            if self.i < len(s) and s[self.i] == "~":
                self.i += 1
                self.skip("0123456789")
        elif c == "$":
            self.i += 1
        elif c in "/\\":
            if c == "\\":
                self.i += 1
            delimiter = s[self.i]
            self.i += 1
            self.delimited(delimiter)
            self.skip("IM")

    def delimited(self, delimiter: str) -> None:
        """Past the next unescaped ``delimiter`` (a newline inside is refused)."""
        s = self.s
        while s[self.i] != delimiter:
            if s[self.i] == "\\":
                self.i += 1
            elif s[self.i] == "\n":
                raise ValueError("newline in a regular expression")
            self.i += 1
        self.i += 1

    def substitute(self) -> bool:
        delimiter = self.s[self.i]
        if delimiter in "\n\\":
            return False
        self.i += 1
        self.delimited(delimiter)
        s = self.s
        while s[self.i] != delimiter:  # the replacement may hold escaped newlines
            self.i += 2 if s[self.i] == "\\" else 1
        self.i += 1
        while self.i < len(s) and s[self.i] not in ";\n}# \t":
            if s[self.i] not in _SED_S_FLAGS:
                return False  # e (run), w (write) or a flag not known
            self.i += 1
        return True


_AWK_NEVER = re.compile(r"\bsystem\b|\bgetline\b|\bARGV\b|\bARGC\b|[|@]")
_AWK_PRINT = re.compile(r"\bprintf?\b")
#: Keywords after which a '/' starts a regular expression (after other names it divides).
_AWK_KEYWORDS = frozenset({"print", "printf", "return", "in", "case", "if", "while", "for", "do", "else",
                           "getline", "delete", "exit"})


def awk_is_harmless(program: str) -> bool:
    """Whether an awk program only reads its input and prints to standard output."""
    text = _awk_code(program)
    if text is None or _AWK_NEVER.search(text):
        return False
    # In a print statement, a '>' outside parentheses redirects the output to a file. The
    # statement may go on over a newline (after ',', '&&', '?'…): only ';' and '}' end it here.
    for match in _AWK_PRINT.finditer(text):
        depth = 0
        for c in text[match.end():]:
            if c in ";}" and depth <= 0:
                break
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == ">" and depth <= 0:
                return False
    return True


def _awk_code(program: str) -> str | None:
    """``program`` with its strings (``""``), regular expressions (``0``) and comments taken out,
    read as awk's lexer reads them; None where that reading is not certain (a '/' after ``++``,
    a backslash outside a string, a newline in a string or a regular expression, a regular
    expression whose end depends on bracket expressions, parentheses that do not pair)."""
    out: list[str] = []
    previous = "\n"  # the last significant text: decides whether a '/' divides or starts a regex
    conditions: list[bool] = []  # open '(': whether it holds an if/while/for condition
    i, n = 0, len(program)
    while i < n:
        c = program[i]
        if c == '"':
            end = _awk_end(program, i + 1, '"')
            if end is None:
                return None
            out.append('""')
            previous, i = '""', end + 1
            continue
        if c == "#":
            while i < n and program[i] != "\n":
                i += 1
            continue
        if c == "\\":
            return None
        if c == "/" and _awk_regex_here(previous, out):
            if previous in ("++", "--"):
                return None
            end = _awk_end(program, i + 1, "/")
            if end is None or _awk_end(program, i + 1, "/", brackets=True) != end:
                return None
            out.append(" 0 ")
            previous, i = "0", end + 1
            continue
        if c == "(":
            conditions.append(_awk_word(out) in ("if", "while", "for"))
        elif c == ")":
            if not conditions:
                return None
            out.append(c)
            previous, i = (";" if conditions.pop() else ")"), i + 1  # after `if (…)` a statement starts
            continue
        out.append(c)
        if c == "\n":
            previous = "\n"
        elif not c.isspace():
            previous = (previous + c)[-2:] if c in "+-" and previous[-1:] == c else c
        i += 1
    return "".join(out) if not conditions else None


def _awk_word(out: list[str]) -> str:
    """The name just before (spaces skipped), or ''."""
    word = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", "".join(out).rstrip())
    return word.group() if word is not None else ""


def _awk_regex_here(previous: str, out: list[str]) -> bool:
    """Whether a '/' after ``previous`` starts a regular expression (not a division). After
    ``++``/``--`` it could be either: the caller refuses the program."""
    if previous in ("++", "--"):
        return True
    last = previous[-1:]
    if last.isalnum() or last == "_":
        return _awk_word(out) in _AWK_KEYWORDS
    return last not in (")", "]", '"', "$", ".")


def _awk_end(program: str, i: int, quote: str, *, brackets: bool = False) -> int | None:
    """Where the string or regular expression starting at ``i`` ends (its closing ``quote``);
    ``brackets``: as a lexer that skips the quote inside ``[...]`` reads it."""
    inside = False
    while i < len(program):
        c = program[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            return None
        if brackets and c == "[" and not inside:
            inside = True
            i += 1
            if i < len(program) and program[i] == "^":
                i += 1
            if i < len(program) and program[i] == "]":
                i += 1
            continue
        if c == "]" and inside:
            inside = False
        elif c == quote and not inside:
            return i
        i += 1
    return None
