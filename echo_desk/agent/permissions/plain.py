"""The plain-command grammar: the one small part of bash an allow rule can cover, read exactly as
bash reads it.

A line is *plain* when it is made only of simple commands — words (unquoted, ``'…'``, ``"…"``
without ``$`` or backticks, backslash escapes), inert ``NAME=value`` prefixes — joined by ``&&``,
``||``, ``;``, ``|`` and newlines, with redirections to literal files, descriptor duplication
(``2>&1``), here-strings and here-documents whose text is not expanded. ``split_plain`` reads
such a line into commands, or raises ``NotPlain`` saying why it is not one.

This is written independently of tree-sitter on purpose: ``shell.analyse`` allows a line only if
both readings agree, so a quirk of either parser makes the line ask instead of letting a command
through. Where bash is missing, commands run under ``/bin/sh``, whose grammar differs: then only
unquoted words of harmless characters are plain (``posix=True``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from echo_desk.agent.permissions.model import Opaque

#: Words with a meaning of their own in command position (bash's reserved words).
RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
                      "done", "function", "in", "{", "}", "[[", "]]", "!", "coproc"})
#: The only characters a word may have where ``/bin/sh`` (dash…) runs the line.
_POSIX_WORD = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DELIMITER = re.compile(r"[A-Za-z0-9_.-]+")
_METACHARACTERS = " \t\n;&|()<>"
#: A run of characters with no meaning to bash inside a word (read in one step).
_ORDINARY = re.compile(r"[^ \t\n;&|()<>\\'\"$`*?\[~=:]+")
_GLOB = "*?["
#: Redirection operators, longest first; the bash-only ones are refused for ``/bin/sh``.
_OPERATORS = ("&>>", "<<<", "<<-", "&>", ">>", ">&", ">|", "<<", "<&", "<>", ">", "<")
_BASH_ONLY = frozenset({"&>>", "&>", "<<<"})


class NotPlain(Exception):
    """The line is not in the plain grammar; ``reason`` says why (shown to the person)."""

    def __init__(self, reason: Opaque, detail: str = "") -> None:
        super().__init__(detail or reason.value)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class PlainWord:
    """One word: ``value`` after quote removal (``None`` for a glob, known only when it runs),
    ``raw`` as written, and where it is in the line."""

    value: str | None
    raw: str
    start: int
    end: int
    quoted: bool
    #: A glob whose matches may start with ``-`` (``*/``, ``-*``): bash hands the program a
    #: match as an option (``option_globs`` says which commands take that).
    may_be_option: bool = False


@dataclass(frozen=True, slots=True)
class PlainRedirect:
    """A redirection: ``operator`` as written, ``target`` (``None`` when it duplicates or closes
    a descriptor, or feeds text: a here-string or here-document)."""

    operator: str
    target: PlainWord | None
    write: bool


@dataclass
class PlainCommand:
    assignments: list[tuple[str, PlainWord]] = field(default_factory=list)
    words: list[PlainWord] = field(default_factory=list)
    redirects: list[PlainRedirect] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.assignments or self.words or self.redirects)


@dataclass
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    literal: bool


def split_plain(line: str, *, posix: bool = False) -> list[PlainCommand]:
    """The simple commands of ``line`` in order; ``NotPlain`` when it is not a plain line."""
    return _Reader(line, posix).read()


class _Reader:
    def __init__(self, line: str, posix: bool) -> None:
        self.line = line
        self.posix = posix
        self.i = 0
        self.commands: list[PlainCommand] = []
        self.current = PlainCommand()
        self.joined = False  # the last thing was && || | : a command must follow
        self.heredocs: list[_Heredoc] = []

    def read(self) -> list[PlainCommand]:
        line, n = self.line, len(self.line)
        while self.i < n:
            c = line[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and line.startswith("\\\n", self.i):
                self.i += 2  # a line continuation between words
            elif c == "\n":
                self.end_command(required=False)
                self.i += 1
                self.read_heredoc_bodies()
            elif c == "#":
                end = line.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c in ";|()" or (c == "&" and not line.startswith("&>", self.i)):
                self.separator(c)
            elif c in "<>" or line.startswith("&>", self.i):
                self.redirect(None)
            else:
                self.word_or_descriptor()
        self.end_command(required=False)
        if self.joined:
            raise NotPlain(Opaque.PARSE_ERROR, "the line ends with an operator")
        if self.heredocs:
            raise NotPlain(Opaque.PARSE_ERROR, "a here-document without its text")
        return self.commands

    def separator(self, c: str) -> None:
        """``;``, ``&&``, ``||``, ``|`` end a command; ``&``, ``|&``, ``;;``, ``(`` are not plain."""
        line = self.line
        if line.startswith((";;", ";&"), self.i):
            raise NotPlain(Opaque.UNSUPPORTED, "';;' outside a case statement")
        if line.startswith("|&", self.i):
            raise NotPlain(Opaque.UNSUPPORTED, "'|&'")
        if c in "()":
            raise NotPlain(Opaque.UNSUPPORTED, "a subshell or function")
        if c == "&" and not line.startswith("&&", self.i):
            raise NotPlain(Opaque.BACKGROUND)
        self.end_command(required=True)
        self.joined = c != ";"
        self.i += 2 if line.startswith(("&&", "||"), self.i) else 1

    # -- commands -----------------------------------------------------------------------------
    def end_command(self, *, required: bool) -> None:
        command = self.current
        if command.empty:
            if required:
                raise NotPlain(Opaque.PARSE_ERROR, "an operator without a command")
            return  # a blank line, or a newline after && || | (the command follows on the next line)
        if not command.words:
            # Only assignments or redirections: sets shell state or truncates files.
            raise NotPlain(Opaque.UNSAFE_ASSIGNMENT if command.assignments else Opaque.UNSUPPORTED)
        first = command.words[0]
        if not first.quoted and first.value in RESERVED:
            raise NotPlain(Opaque.UNSUPPORTED, f"the reserved word {first.value!r}")
        if not first.quoted and first.value == "time":
            # bash's `time` keyword times a whole pipeline, which may start with a reserved word.
            rest = [w for w in command.words[1:] if not (w.value == "-p" and not w.quoted)]
            if rest and not rest[0].quoted and rest[0].value in RESERVED:
                raise NotPlain(Opaque.UNSUPPORTED, f"the reserved word {rest[0].value!r}")
        self.commands.append(command)
        self.current = PlainCommand()
        self.joined = False

    # -- words --------------------------------------------------------------------------------
    def word_or_descriptor(self) -> None:
        word = self.word()
        line = self.line
        if self.i < len(line) and line[self.i] in "<>":
            if not word.quoted and _number(word.raw):
                self.redirect(int(word.raw))
                return
            if word.raw.startswith("{") and word.raw.endswith("}"):
                raise NotPlain(Opaque.UNSUPPORTED, "a redirection to a named descriptor")
        command = self.current
        match = _NAME.match(word.raw) if not command.words else None
        if match is not None:
            following = word.raw[match.end():match.end() + 2]
            if following.startswith("="):
                # Not glob-expanded, and bash expands a tilde after '=' or ':' in it.
                value = word.raw[match.end() + 1:]
                if "~" in value:
                    raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "a tilde in an assignment")
                unquoted = None if word.value is None else word.value[match.end() + 1:]
                command.assignments.append(
                    (match.group(0), PlainWord(unquoted, value, word.start + match.end() + 1, word.end, word.quoted)))
                return
            if following == "+=":
                raise NotPlain(Opaque.UNSAFE_ASSIGNMENT)
        command.words.append(word)

    def word(self) -> PlainWord:
        line, n = self.line, len(self.line)
        start = self.i
        out: list[str] = []
        quoted = glob = False
        unquoted: list[str] = []  # the unquoted characters, to look for braces and tildes
        while self.i < n:
            run = _ORDINARY.match(line, self.i)
            if run is not None and (self.i != start or line[self.i] != "~"):
                text = run.group(0)
                if self.posix and not _POSIX_WORD.fullmatch(text):
                    raise NotPlain(Opaque.NOT_PLAIN_WORDS)
                out.append(text)
                unquoted.append(text)
                self.i = run.end()
                continue
            c = line[self.i]
            if c in _METACHARACTERS:
                break
            if c in "\\'\"":
                if self.posix:
                    raise NotPlain(Opaque.NOT_PLAIN_WORDS)
                text = self.quoted(c)
                out.append(text)
                quoted = quoted or c != "\\" or text != ""
                continue
            if c in "$`":
                raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "an expansion")
            if c == "~" and (self.i == start or (unquoted and unquoted[-1] in "=:")):
                self.tilde(start)
            if c in _GLOB:
                glob = True
            if self.posix and not _POSIX_WORD.fullmatch(c):
                raise NotPlain(Opaque.NOT_PLAIN_WORDS)
            out.append(c)
            unquoted.append(c)
            self.i += 1
        raw = line[start:self.i]
        bare = "".join(unquoted)
        if ("{" in bare and "}" in bare) and ("," in raw or ".." in raw):
            raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "a brace expansion")
        value = "".join(out)
        if glob:
            option = value[:1] in ("-", *_GLOB) or raw[:1] in _GLOB
            return PlainWord(None, raw, start, self.i, quoted, may_be_option=option)
        return PlainWord(value, raw, start, self.i, quoted)

    def quoted(self, c: str) -> str:
        """The text of a backslash escape, ``'…'`` or ``"…"`` starting at ``self.i`` (passed)."""
        line = self.line
        if c == "'":
            start = self.i + 1
            end = line.find("'", start)
            if end < 0:
                raise NotPlain(Opaque.PARSE_ERROR, "an unclosed quote")
            self.i = end + 1
            return line[start:end]
        if c == '"':
            return self.double_quoted()
        if self.i + 1 >= len(line):
            raise NotPlain(Opaque.PARSE_ERROR, "a backslash at the end of the line")
        following = line[self.i + 1]
        self.i += 2
        return "" if following == "\n" else following

    def tilde(self, start: int) -> None:
        """Only ``~`` and ``~/…`` at the start of a word (the person's home) are plain; ``~user``,
        ``~+``, ``~-`` and a tilde after ``=`` or ``:`` (which bash expands in some words) are not."""
        if self.i != start:
            raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "a tilde after '=' or ':'")
        following = self.line[self.i + 1:self.i + 2]
        if following and following != "/" and following not in _METACHARACTERS:
            raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "a tilde naming another folder")

    def double_quoted(self) -> str:
        line, n = self.line, len(self.line)
        out: list[str] = []
        k = self.i + 1
        while k < n:
            c = line[k]
            if c == '"':
                self.i = k + 1
                return "".join(out)
            if c in "$`":
                raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "an expansion in double quotes")
            if c == "\\" and k + 1 < n:
                following = line[k + 1]
                if following in '$`"\\':
                    out.append(following)
                elif following != "\n":
                    out.append("\\" + following)
                k += 2
                continue
            out.append(c)
            k += 1
        raise NotPlain(Opaque.PARSE_ERROR, "an unclosed quote")

    # -- redirections -------------------------------------------------------------------------
    def redirect(self, descriptor: int | None) -> None:
        line = self.line
        operator = next(op for op in _OPERATORS if line.startswith(op, self.i))
        if self.posix and (operator in _BASH_ONLY or operator in ("<<", "<<-")):
            raise NotPlain(Opaque.NOT_PLAIN_WORDS)
        if operator in _BASH_ONLY and descriptor is not None:
            raise NotPlain(Opaque.UNSUPPORTED, "a descriptor before &>")
        self.i += len(operator)
        while self.i < len(line) and line[self.i] in " \t":
            self.i += 1
        if self.i >= len(line) or line[self.i] in _METACHARACTERS:
            raise NotPlain(Opaque.PARSE_ERROR, "a redirection without a target")
        target = self.word()
        if target.value is None:
            raise NotPlain(Opaque.DYNAMIC_ARGUMENT, "a redirection to a glob")
        if operator in ("<<", "<<-"):
            if not _DELIMITER.fullmatch(target.value):
                raise NotPlain(Opaque.HEREDOC, "an unusual here-document delimiter")
            literal = any(q in target.raw for q in "'\"\\")
            self.heredocs.append(_Heredoc(target.value, operator == "<<-", literal))
            self.current.redirects.append(PlainRedirect(operator, None, False))
            return
        if operator == "<<<":
            self.current.redirects.append(PlainRedirect(operator, None, False))
            return
        if operator in (">&", "<&"):
            if _number(target.value) or target.value == "-":
                self.current.redirects.append(PlainRedirect(operator, None, False))
                return
            if operator == "<&" or descriptor is not None or self.posix:
                raise NotPlain(Opaque.UNSUPPORTED, "a descriptor redirection to a file")
        write = operator not in ("<",)
        self.current.redirects.append(PlainRedirect(operator, target, write))

    def read_heredoc_bodies(self) -> None:
        """Read the text of each here-document opened on the line just ended."""
        line = self.line
        while self.heredocs:
            doc = self.heredocs.pop(0)
            while True:
                if self.i >= len(line):
                    raise NotPlain(Opaque.PARSE_ERROR, "a here-document without its end")
                end = line.find("\n", self.i)
                text = line[self.i:] if end < 0 else line[self.i:end]
                self.i = len(line) if end < 0 else end + 1
                compared = text.lstrip("\t") if doc.strip_tabs else text
                if compared == doc.delimiter:
                    break
                if not doc.literal and any(c in text for c in "$`\\"):
                    raise NotPlain(Opaque.HEREDOC)


def _number(text: str) -> bool:
    """ASCII digits only: bash reads no other digits as a descriptor (``٢>x`` is a word)."""
    return text.isascii() and text.isdigit()
