"""A shell line as the rules see it: every command it would run, and whether it is *plain*.

``analyse(line)`` parses the line with a bash grammar (tree-sitter-bash) and

- **collects** every command anywhere in the tree — in pipelines and lists, ``$(…)``, backticks,
  process substitutions, loop/if/case bodies, functions, what follows a here-document on its
  line — with its words unquoted (``-e"x"ec`` is ``-exec``; a word only known when the line runs
  is ``None``) and every redirection. Deny and floor rules are checked against all of them.
- decides whether the line is **plain**: every node of the tree is of a kind this module handles
  explicitly (words, quoted strings without expansions, ``&& || ; |`` and newlines, comments,
  redirections to literal files, descriptor duplication, here-documents whose text is not
  expanded), and an independent reader of that small grammar (``plain.split_plain``) reads the
  very same commands. Anything else — an expansion, a compound command, a glob that can become
  an option, ``&``, a node or child the walker does not know, the two readings differing — makes
  the line *opaque* (``Analysis.opaque``): no allow rule or grant can apply to it.

The parser never sees a character outside printable ASCII: each is replaced by a placeholder
that bash also reads as an ordinary word character (``%``), and the words are cut from the
original line. tree-sitter-bash 0.25.1 can crash the process on some 4-byte characters (its
issue #337) and its scanner misreads others; a line with a character outside the Basic
Multilingual Plane, or a control character, is opaque besides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from echo_desk.agent.permissions.data_variables import reads_as_data
from echo_desk.agent.permissions.model import Opaque
from echo_desk.agent.permissions.option_globs import takes_any_option
from echo_desk.agent.permissions.plain import NotPlain, PlainCommand, split_plain
from echo_desk.sandbox.shell import Grammar

#: The builtins that change the folder the rest of the line runs in.
CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})
#: Longer lines are never allowed by a rule (and not parsed).
MAX_COMMAND_CHARS = 10_000

#: ``NAME=value`` prefixes that change no program's behaviour in a way that runs other code;
#: their value must be made of harmless characters too (no paths: ``LC_ALL=../x`` loads files).
INERT_ASSIGNMENTS = frozenset({
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
    "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "COLUMNS", "LINES", "CI", "TZ",
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "RUST_BACKTRACE",
})
_INERT_VALUE = re.compile(r"[A-Za-z0-9_.,:@%+-]*")
#: A redirection reading onto descriptor 1 or 2, or copying one other than 1 and 2 (see
#: ``Analysis.may_reopen_output``).
_REOPENS_OUTPUT = re.compile(r"[12]<|[<>]&\s*(?![12]\b)\d")
#: bash's builtins and reserved words (``compgen -b``, ``compgen -k``, bash 5.2): an assignment
#: before one is not the environment of a program (``IFS=x read``; before a special builtin it
#: stays set for the rest of the line), so it is never read as ``env NAME=value`` (s269).
SHELL_BUILTINS = frozenset("""
    . : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown
    echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile
    popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true
    type typeset ulimit umask unalias unset wait
    if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc
""".split())
#: Characters bash reads as ordinary word characters but the parser must not see.
_PLACEHOLDER = "%"
_REFUSED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\U00010000-\U0010ffff]")

_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_GLOB = "*?["


@dataclass(frozen=True, slots=True)
class Word:
    """One argv word: ``value`` unquoted (``None`` when only known at run time), ``raw`` as written."""

    value: str | None
    raw: str


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirection to or from a file (``write``: ``>``, ``>>``, ``&>``, ``>|``, ``<>``)."""

    target: Word
    write: bool
    text: str


_ENV = Word("env", "env")


@dataclass(frozen=True, kw_only=True)
class Command:
    """One simple command that would run. ``argv`` includes the program name; ``assignments``
    are the names of its ``VAR=value`` prefixes; ``opaque`` says why no allow may apply to it."""

    argv: tuple[Word, ...]
    text: str
    assignments: tuple[str, ...] = ()
    opaque: Opaque | None = None
    #: Its ``NAME=value`` prefixes when one is neither inert nor data for the program
    #: (``data_variables``): the command is then judged as ``env NAME=value … program …``
    #: (``as_environment``), so only a rule naming the assignment allows it.
    environment: tuple[Word, ...] = ()

    @property
    def program(self) -> str | None:
        return self.argv[0].value if self.argv else None

    @property
    def directory_change(self) -> tuple[Word, ...] | None:
        """The words of the ``cd``/``pushd``/``popd`` this command is, also behind bash's
        ``builtin`` and ``command`` (``command cd out`` changes the folder too) and its ``time``
        keyword, which times the command in the shell itself: ``time -p cd ..`` leaves the folder
        for the rest of the line (s294). Else ``None``."""
        words = self.argv
        while words and words[0].value in ("builtin", "command", "time"):
            wrapper, words = words[0].value, words[1:]
            while wrapper == "command" and words and (words[0].value or "").startswith("-"):
                if words[0].value != "--" and set(words[0].value or "") & {"v", "V"}:
                    return None  # `command -v cd` only prints
                words = words[1:]
            # bash's `time` takes -p and --; any other option is read so too, which may see a
            # change of folder where bash runs none (the line then asks), never miss one.
            while wrapper == "time" and words and (words[0].value or "").startswith("-"):
                words = words[1:]
        return words if words and words[0].value in CHANGES_DIRECTORY else None

    def as_environment(self) -> Command:
        """The command as ``env`` running it with its prefixes (itself when it has none to
        name): bash gives a program its prefixes as its environment, as ``env`` does, so the
        wrapper's reading judges them (a rule naming them, the settings they may name)."""
        prefix = (_ENV, *self.environment)
        if not self.environment or self.argv[:len(prefix)] == prefix:
            return self
        return Command(argv=(*prefix, *self.argv), text=self.text, assignments=self.assignments, opaque=self.opaque,
                       environment=self.environment)


@dataclass(kw_only=True)
class Analysis:
    """What ``analyse`` found: every command and redirection, and whether the line as a whole
    is opaque (then an allow never applies; ``commands`` still holds what could be collected)."""

    line: str
    grammar: Grammar = Grammar.BASH
    commands: list[Command] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    opaque: Opaque | None = None
    #: The line is its commands joined by ``&&`` alone, in order: each runs only when the ones
    #: before it succeeded (after ``cd out &&``, in out).
    and_chain: bool = False

    @property
    def allowable(self) -> bool:
        """Plain: nothing keeps an allow rule from applying (each command still needs its rule)."""
        return self.opaque is None and all(c.opaque is None for c in self.commands)

    @property
    def changes_directory(self) -> bool:
        return any(c.directory_change is not None for c in self.commands)

    @property
    def gives_input(self) -> bool:
        """Whether the line may give a command a standard input of its own: a pipe, or a
        redirection that reads (``<``, ``<<``, ``<<<``, ``<>``, ``<&``; an ``exec`` one too).
        Read from the text (a ``|`` or ``<`` anywhere counts, quoted too): without either, a
        command reads the input the line itself runs with, which Echo Desk closes."""
        return "|" in self.line or "<" in self.line

    @property
    def may_reopen_output(self) -> bool:
        """Whether the line may put on standard output or error a descriptor it did not open for
        writing: a redirection reading onto 1 or 2 (``1< FILE``, ``2<<< x``) or a copy of another
        descriptor (``>&0``, ``2<&3``). ``/dev/stdout`` and ``/dev/stderr`` then open that file
        again, for writing: ``tee /dev/stdout 1< ../keep.txt`` overwrote keep.txt (strace,
        coreutils 9.1, bash 5.2 and dash 0.5, s333). Read from the text, quoted too, and with its
        line continuations removed as the shell does first (``1\\<newline>< FILE`` is ``1< FILE``)."""
        return any(_REOPENS_OUTPUT.search(text) is not None for text in (self.line, self.line.replace("\\\n", "")))


def inert_value(value: str) -> bool:
    """Whether an assignment's value is made of harmless characters (no path, no expansion)."""
    return _INERT_VALUE.fullmatch(value) is not None


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def refused_characters(line: str) -> Opaque | None:
    """Why the characters of ``line`` alone make it opaque: a NUL, another control character
    (bash and the parser may read them differently), a surrogate or a character outside the
    Basic Multilingual Plane."""
    return Opaque.UNSUPPORTED_CHARACTER if _REFUSED.search(line) else None


def parser_text(line: str) -> bytes:
    """``line`` as the parser sees it: printable ASCII, tabs and newlines kept, every other
    character one placeholder byte (so a byte offset in the tree is a character offset here)."""
    if line.isascii() and line.isprintable():
        return line.encode("ascii")
    return "".join(ch if ch in "\t\n" or " " <= ch <= "~" else _PLACEHOLDER for ch in line).encode("ascii")


def analyse(line: str, *, grammar: Grammar = Grammar.BASH) -> Analysis:
    """Every command ``line`` would run, and whether it is plain. Never raises."""
    result = Analysis(line=line, grammar=grammar)
    if len(line) > MAX_COMMAND_CHARS:
        result.opaque = Opaque.TOO_LONG
        return result
    tree = _parser().parse(parser_text(line))
    root = tree.root_node

    def text(node: tree_sitter.Node) -> str:
        return line[node.start_byte:node.end_byte]

    _collect(root, text, result)
    as_parsed = Analysis(line=line, grammar=grammar, commands=list(result.commands), redirects=list(result.redirects))
    try:
        plain: list[PlainCommand] | NotPlain = split_plain(line, posix=grammar is Grammar.POSIX)
    except NotPlain as exc:
        plain = exc
    _collect_other_readings(line, grammar, result, plain)
    result.opaque = refused_characters(line)
    if result.opaque is None and root.has_error:
        result.opaque = Opaque.PARSE_ERROR
    if result.opaque is None:
        result.opaque = _Strict(text).program(root)
    if result.opaque is None:
        result.opaque = _same_as_plain_reading(plain, as_parsed)
    # (after the two readings were compared, word for word: the env form is the rules' reading)
    result.commands = [command.as_environment() for command in result.commands]
    result.and_chain = _and_chained(root) == len(result.commands)
    return result


def _and_chained(root: tree_sitter.Node) -> int | None:
    """How many simple commands the line is when they are joined by ``&&`` alone (``None``: any
    other separator, a pipe, a redirected or compound statement; the caller also compares the
    count with every command found, so one inside a word's ``$(…)`` makes it ``None`` too)."""
    statements = [c for c in root.named_children if c.type != "comment"]
    if len(statements) != 1:
        return None
    count = 0
    stack = statements
    while stack:
        node = stack.pop()
        if node.type == "command":
            count += 1
            continue
        if node.type != "list" or any(not c.is_named and c.type != "&&" for c in node.children):
            return None
        stack.extend(c for c in node.named_children if c.type != "comment")
    return count


# -- collecting every command --------------------------------------------------------------------
def _collect(root: tree_sitter.Node, text: Callable[[tree_sitter.Node], str], result: Analysis) -> None:
    """Every ``command`` (and declaration) node anywhere below ``root``, in source order."""
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "command":
            result.commands.append(_command(node, text))
        elif kind in ("declaration_command", "unset_command"):
            argv = tuple(Word(text(c), text(c)) if not c.is_named else Word(_static_value(c, text), text(c))
                         for c in node.children if c.type != "comment")
            result.commands.append(Command(argv=argv, text=text(node), opaque=Opaque.UNSAFE_ASSIGNMENT))
        elif kind == "file_redirect":
            redirect = _file_redirect(node, text)
            if redirect is not None:
                result.redirects.append(redirect)
        elif kind == "heredoc_body" and "`" in text(node) and not _quoted_heredoc(node, text):
            # The grammar does not look for backticks in a here-document's text; bash runs them.
            for inner in _backticks(text(node)):
                result.commands.extend(analyse(inner).commands)
        stack.extend(reversed(node.children))


def _quoted_heredoc(body: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> bool:
    """Whether a here-document's delimiter is quoted (then its text is literal)."""
    parent = body.parent
    start = next((c for c in parent.children if c.type == "heredoc_start"), None) if parent is not None else None
    return start is not None and any(q in text(start) for q in "'\"\\")


def _backticks(text: str) -> list[str]:
    """The commands between unescaped backticks of a text (for deny rules only)."""
    found: list[str] = []
    start: int | None = None
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "`":
            if start is None:
                start = i + 1
            else:
                found.append(text[start:i])
                start = None
        i += 1
    return found


def _collect_other_readings(line: str, grammar: Grammar, result: Analysis,
                            plain: list[PlainCommand] | NotPlain) -> None:
    """Deny and floor rules see the commands of every reading: bash joins ``\\``-newline
    continuations before it reads words (``r\\<newline>m`` is ``rm``), and it ends a command
    at an unquoted newline where tree-sitter may not (``ls`` newline ``\\rm``)."""
    known = {tuple(w.value for w in c.argv) for c in result.commands}

    def add(commands: list[Command]) -> None:
        for command in commands:
            key = tuple(w.value for w in command.argv)
            if key not in known:
                known.add(key)
                result.commands.append(command)

    joined = _join_continuations(line)
    if joined != line and len(joined) <= MAX_COMMAND_CHARS:
        other = Analysis(line=joined, grammar=grammar)
        _collect(_parser().parse(parser_text(joined)).root_node, lambda n: joined[n.start_byte:n.end_byte], other)
        add(other.commands)
        result.redirects.extend(other.redirects)
    for command in list(result.commands):
        cut = _line_break(command.text)
        if cut is not None:
            add(analyse(command.text[cut + 1:], grammar=grammar).commands)
    if not isinstance(plain, NotPlain):
        add([Command(argv=tuple(Word(w.value, w.raw) for w in c.words), text=line[c.words[0].start:c.words[-1].end])
             for c in plain if tuple(w.value for w in c.words) not in known])


def _join_continuations(line: str) -> str:
    """``line`` with backslash-newline pairs removed where bash removes them (not in '…')."""
    if "\\\n" not in line:
        return line
    out: list[str] = []
    quote = ""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            if line[i + 1:i + 2] == "\n":
                i += 2
                continue
            out.append(line[i:i + 2])
            i += 2
            continue
        elif c == '"':
            quote = "" if quote == '"' else '"'
        elif c == "'" and not quote:
            quote = "'"
        out.append(c)
        i += 1
    return "".join(out)


def _command(node: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> Command:
    argv: list[Word] = []
    names: list[str] = []
    given: list[tuple[str, str | None, str]] = []
    opaque: Opaque | None = None
    for child in node.named_children:
        kind = child.type
        if kind == "variable_assignment":
            name_node = child.child_by_field_name("name")
            name = text(name_node) if name_node is not None else text(child).split("=")[0]
            names.append(name)
            value_node = child.child_by_field_name("value")
            given.append((name, "" if value_node is None else _static_value(value_node, text), text(child)))
        elif kind in _REDIRECTS or kind == "comment":
            continue
        elif kind == "command_name":
            inner = child.named_children[0] if child.named_children else child
            word = Word(_static_value(inner, text), text(inner))
            if word.value is None:
                opaque = opaque or Opaque.EXPANSION_IN_COMMAND
            argv.append(word)
        else:
            argv.append(Word(_static_value(child, text), text(child)))
    environment, unsafe = _prefixes(given, tuple(word.value for word in argv))
    return Command(argv=tuple(argv), text=text(node), assignments=tuple(names), opaque=unsafe or opaque,
                   environment=environment)


def _prefixes(given: list[tuple[str, str | None, str]],
              argv: tuple[str | None, ...]) -> tuple[tuple[Word, ...], Opaque | None]:
    """What a command's ``NAME=value`` prefixes make of it: nothing when each is inert, or data
    for the command (``data_variables``); else the prefixes a rule must name (the command is
    judged as ``env`` given them), or opaque when they cannot be named so: a value of other
    characters or only known when it runs, a builtin or no program after them."""
    if any(value is None or not _INERT_VALUE.fullmatch(value) for _, value, _ in given):
        return (), Opaque.UNSAFE_ASSIGNMENT
    if all(name in INERT_ASSIGNMENTS or reads_as_data(argv, name) for name, _, _ in given):
        return (), None
    program = argv[0] if argv else None
    if program is None or program in SHELL_BUILTINS:
        return (), Opaque.UNSAFE_ASSIGNMENT
    return tuple(Word(f"{name}={value}", raw) for name, value, raw in given), None


def _file_redirect(node: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> Redirect | None:
    operator = ""
    destination: tree_sitter.Node | None = None
    for child in node.children:
        if not child.is_named:
            operator = operator or text(child)
        elif child.type not in ("file_descriptor", "ERROR"):
            destination = child
    if destination is None:
        return None
    target = text(destination)
    if operator in (">&", "<&", ">&-", "<&-") and ((target.isascii() and target.isdigit()) or target == "-"):
        return None  # duplicating or closing a descriptor
    return Redirect(target=Word(_static_value(destination, text), target), write=operator != "<", text=text(node))


# -- the allow-list walk -----------------------------------------------------------------------
_SEPARATORS = frozenset({";", "\n", "&&", "||", "|"})
#: Every kind of node a plain line's tree may hold (the walker below accepts no other).
PLAIN_NODE_KINDS = frozenset({
    "program", "list", "pipeline", "redirected_statement", "command", "command_name", "variable_assignment",
    "variable_name", "word", "string", "string_content", "raw_string", "number", "concatenation", "comment",
    "file_redirect", "file_descriptor", "herestring_redirect", "heredoc_redirect", "heredoc_start", "heredoc_body",
    "heredoc_content", "heredoc_end", '"', "=", "<<", "<<-", "<<<", ">", ">>", "<", ">|", "&>", "&>>", ">&", "<&",
    ">&-", "<&-", *_SEPARATORS,
})
_WORDS = frozenset({"word", "string", "raw_string", "number", "concatenation"})
#: Why a node kind the walker does not handle makes the line opaque.
_WHY = {
    "simple_expansion": Opaque.DYNAMIC_ARGUMENT, "expansion": Opaque.DYNAMIC_ARGUMENT,
    "command_substitution": Opaque.DYNAMIC_ARGUMENT, "arithmetic_expansion": Opaque.DYNAMIC_ARGUMENT,
    "process_substitution": Opaque.DYNAMIC_ARGUMENT, "ansi_c_string": Opaque.DYNAMIC_ARGUMENT,
    "translated_string": Opaque.DYNAMIC_ARGUMENT, "brace_expression": Opaque.DYNAMIC_ARGUMENT,
    "subshell": Opaque.COMPOUND, "compound_statement": Opaque.COMPOUND, "if_statement": Opaque.COMPOUND,
    "while_statement": Opaque.COMPOUND, "for_statement": Opaque.COMPOUND, "c_style_for_statement": Opaque.COMPOUND,
    "case_statement": Opaque.COMPOUND, "test_command": Opaque.COMPOUND, "negated_command": Opaque.COMPOUND,
    "arithmetic_expression": Opaque.COMPOUND, "function_definition": Opaque.FUNCTION_DEFINITION,
    "variable_assignment": Opaque.UNSAFE_ASSIGNMENT, "variable_assignments": Opaque.UNSAFE_ASSIGNMENT,
    "declaration_command": Opaque.UNSAFE_ASSIGNMENT, "unset_command": Opaque.UNSAFE_ASSIGNMENT,
    "&": Opaque.BACKGROUND, "ERROR": Opaque.PARSE_ERROR,
}


class _Opaque(Exception):
    def __init__(self, why: Opaque) -> None:
        self.why = why


class _Strict:
    """Walks the tree accepting only the node kinds of a plain line, each with the children it
    expects; the first thing it does not handle ends the walk with the reason."""

    def __init__(self, text: Callable[[tree_sitter.Node], str]) -> None:
        self.text = text

    def program(self, root: tree_sitter.Node) -> Opaque | None:
        try:
            self.statements(root.children)
        except _Opaque as stop:
            return stop.why
        return None

    @staticmethod
    def refuse(node: tree_sitter.Node) -> _Opaque:
        if node.is_missing:
            return _Opaque(Opaque.PARSE_ERROR)
        return _Opaque(_WHY.get(node.type, Opaque.UNSUPPORTED))

    def statements(self, children: list[tree_sitter.Node]) -> None:
        for child in children:
            if child.is_missing:
                raise self.refuse(child)
            if not child.is_named:
                if child.type not in _SEPARATORS:
                    raise self.refuse(child)
            elif child.type != "comment":
                self.statement(child)

    def statement(self, node: tree_sitter.Node) -> None:
        kind = node.type
        if kind == "command":
            self.command(node)
        elif kind in ("list", "pipeline"):
            self.statements(node.children)
        elif kind == "redirected_statement":
            for child in node.children:
                if child.type in _REDIRECTS:
                    self.redirect(child)
                elif child.is_named and child.type != "comment":
                    self.statement(child)
                else:
                    raise self.refuse(child)
        else:
            raise self.refuse(node)

    def command(self, node: tree_sitter.Node) -> None:
        if _crosses_a_line(self.text(node)):
            raise _Opaque(Opaque.PARSE_ERROR)
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                if len(child.children) != 1:
                    raise self.refuse(child)
                self.word(child.children[0])
            elif kind == "variable_assignment":
                for part in child.children:
                    if part.type not in ("variable_name", "=") and part.type not in _WORDS:
                        raise self.refuse(part)
                    if part.type in _WORDS:
                        self.word(part)
            elif kind in _REDIRECTS:
                self.redirect(child)
            elif kind in _WORDS:
                self.word(child)
            elif kind != "comment":
                raise self.refuse(child)

    def word(self, node: tree_sitter.Node) -> None:
        kind = node.type
        if kind in ("word", "raw_string", "number"):
            if node.children:
                raise self.refuse(node.children[0])
        elif kind == "string":
            for child in node.children:
                if child.type not in ('"', "string_content"):
                    raise self.refuse(child)
        elif kind == "concatenation":
            for child in node.children:
                if child.type not in ("word", "string", "raw_string", "number"):
                    raise self.refuse(child)
                self.word(child)
        else:
            raise self.refuse(node)

    def redirect(self, node: tree_sitter.Node) -> None:
        kind = node.type
        if kind == "file_redirect":
            for child in node.children:
                if child.type in ("file_descriptor",) or (not child.is_named and not child.is_missing):
                    continue
                self.word(child)
        elif kind == "herestring_redirect":
            for child in node.children:
                if child.is_named:
                    self.word(child)
                elif child.type != "<<<":
                    raise self.refuse(child)
        elif kind == "heredoc_redirect":
            self.heredoc(node)
        else:
            raise self.refuse(node)

    def heredoc(self, node: tree_sitter.Node) -> None:
        """The here-document itself, then what tree-sitter hangs below it: the rest of its line
        (``| cmd``, ``&& cmd``, ``> file``) — each walked like any other part of the line."""
        for child in node.children:
            kind = child.type
            if kind in ("<<", "<<-", "heredoc_start", "heredoc_end") or kind in _SEPARATORS:
                continue
            if kind == "heredoc_body":
                for part in child.children:
                    if part.type != "heredoc_content":
                        raise self.refuse(part)  # an expansion in the text
            elif kind in _REDIRECTS:
                self.redirect(child)
            elif child.is_named and kind != "comment":
                self.statement(child)
            elif kind != "comment":
                raise self.refuse(child)


def _crosses_a_line(text: str) -> bool:
    """Whether a command's source has an unquoted, unescaped newline in it: tree-sitter reads
    ``ls`` newline ``\\rm x`` as one command; bash runs two."""
    return _line_break(text) is not None


def _line_break(text: str) -> int | None:
    """Where the first unquoted, unescaped newline of a command's source is."""
    if "\n" not in text:
        return None
    quote = ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":
            i += 1
        elif quote == '"':
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c == "\n":
            return i
        i += 1
    return None


def _same_as_plain_reading(plain: list[PlainCommand] | NotPlain, result: Analysis) -> Opaque | None:
    """The plain-grammar reader's verdict, and whether it read the same commands as the tree."""
    if isinstance(plain, NotPlain):
        return plain.reason
    mine = [(tuple(n for n, _ in c.assignments), tuple(w.value for w in c.words)) for c in plain]
    theirs = [(c.assignments, tuple(w.value for w in c.argv)) for c in result.commands]
    if mine != theirs or _targets(plain) != sorted((r.write, r.target.value or "") for r in result.redirects):
        return Opaque.UNSUPPORTED
    for command, read in zip(result.commands, plain, strict=True):
        for _name, value in read.assignments:
            if value.value is None or not _INERT_VALUE.fullmatch(value.value):
                return Opaque.UNSAFE_ASSIGNMENT
        if command.opaque is not None:
            return command.opaque
        if any(w.may_be_option for w in read.words) and not takes_any_option(tuple(w.value for w in read.words)):
            return Opaque.GLOB_OPTION
    return None


def _targets(commands: list[PlainCommand]) -> list[tuple[bool, str]]:
    return sorted((r.write, r.target.value or "") for c in commands for r in c.redirects if r.target is not None)


# -- word values ---------------------------------------------------------------------------------
def _static_value(node: tree_sitter.Node, text: Callable[[tree_sitter.Node], str]) -> str | None:
    """The word's value after quote removal, or ``None`` when only known at run time."""
    kind = node.type
    if kind == "word" or kind == "number":
        return _unquoted_word(text(node))
    if kind == "raw_string":
        return text(node)[1:-1]
    if kind == "ansi_c_string":  # never plain, but deny rules see `$'\x72m'` as `rm`
        return _ansi_c(text(node)[2:-1])
    if kind == "string":
        parts: list[str] = []
        for child in node.children:
            if not child.is_named:
                continue
            if child.type != "string_content":
                return None
            parts.append(text(child))
        inner = "".join(parts)
        return re.sub(r"\\([\\$`\"\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), inner)
    if kind == "concatenation":
        words = "".join(text(c) for c in node.children if c.type in ("word", "number"))
        if _BRACE.search(words):
            return None
        values = [_static_value(c, text) for c in node.children]
        if any(v is None for v in values):
            return None
        return "".join(v for v in values if v is not None)
    return None


def _unquoted_word(text: str) -> str | None:
    """An unquoted word: backslashes removed; globs and brace expansions are dynamic."""
    out: list[str] = []
    escaped = False
    for ch in text:
        if escaped:
            if ch != "\n":
                out.append(ch)
            escaped = False
            continue
        if ch == "\\":
            escaped = True
            continue
        if ch in _GLOB:
            return None
        out.append(ch)
    if _BRACE.search(text) or ("$" in text and not text.endswith("$")):
        return None
    return "".join(out)


_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL)
_ANSI_C_NAMED = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                 "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(body: str) -> str | None:
    """The value of ``$'…'`` (bash's escapes); ``None`` for one it does not define."""
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "xuU":
            return chr(min(int(code[1:], 16), 0x10FFFF))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        if code[0] == "c":
            return chr(ord(code[1].upper()) ^ 0x40)
        if code in _ANSI_C_NAMED:
            return _ANSI_C_NAMED[code]
        raise ValueError(code)

    try:
        return _ANSI_C.sub(one, body)
    except ValueError:
        return None
