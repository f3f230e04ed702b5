"""Every command a shell line would run, from a real bash grammar (tree-sitter-bash).

``analyse(line)`` walks the syntax tree and collects each simple command — in pipelines, lists
(``&&``, ``||``, ``;``, ``&``, newlines), ``$(…)``, backticks, ``<(…)``/``>(…)``, subshells,
``{ …; }``, loop/if/case bodies, here-document substitutions, and ``bash|sh|zsh -c '<literal>'``
(parsed again, recursively) — with its words unquoted (``-e"x"ec`` is ``-exec``) and every
redirection target. Words whose value is only known when the line runs (``$x``, ``$(…)``, globs,
brace expansions, ``$'…'``) are kept as *dynamic* (``Word.value is None``).

Whatever the walker does not fully understand marks the command (or the whole line) *opaque*
(``Opaque``): no allow rule may apply to it. That is the safety argument: an allow needs every
part to be understood and matched; anything unknown falls back to asking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from echo_desk.agent.permissions.model import Opaque

#: Longer lines are never allowed by a rule (and not parsed).
MAX_COMMAND_CHARS = 10_000
#: ``bash -c`` inside ``bash -c``…: deeper nesting is opaque.
MAX_NESTING = 4

#: Environment assignments that change no program's behaviour in a way that runs other code.
SAFE_ASSIGNMENTS = frozenset({
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
    "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "TERM", "COLUMNS", "LINES", "CI",
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "RUST_BACKTRACE",
})
#: Never unwrapped: what they run is another person's (or machine's) business. Always ask.
ELEVATORS = frozenset({"sudo", "doas", "su", "ssh", "pkexec", "runuser", "run0", "machinectl", "chroot", "nsenter"})
#: Run a string as shell code: never understood.
EVALUATORS = frozenset({"eval", "source", ".", "trap", "alias", "builtin", "enable", "coproc", "fc"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "busybox"})
#: Wrappers that run their argument as a command (unwrapped for deny matching).
WRAPPERS = frozenset({"timeout", "nice", "nohup", "time", "command", "env", "stdbuf", "xargs", "exec", "ionice",
                      "setsid", "unbuffer", "caffeinate", "chronic"})

_STATEMENT_CONTAINERS = frozenset({
    "program", "list", "pipeline", "compound_statement", "subshell", "do_group", "if_statement",
    "elif_clause", "else_clause", "while_statement", "for_statement", "c_style_for_statement",
    "case_statement", "case_item", "negated_command", "redirected_statement",
})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")


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


@dataclass(frozen=True, kw_only=True)
class Command:
    """One simple command that would run. ``argv`` includes the program name; ``assignments``
    are ``VAR=value`` prefixes (names); ``opaque`` says why no allow may apply to it."""

    argv: tuple[Word, ...]
    text: str
    assignments: tuple[str, ...] = ()
    opaque: Opaque | None = None
    #: Set for ``bash -c '<literal>'`` and ``cd`` inside the workspace: the command itself
    #: needs no allow rule (its inner commands, collected separately, do).
    transparent: bool = False

    @property
    def program(self) -> str | None:
        return self.argv[0].value if self.argv else None


@dataclass(kw_only=True)
class Analysis:
    """What ``analyse`` found: every command, every redirection, and whether the line as a
    whole is opaque (parse error, too long) — then ``commands`` may be incomplete."""

    line: str
    commands: list[Command] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    opaque: Opaque | None = None
    changes_directory: bool = False

    @property
    def allowable(self) -> bool:
        """No part of the line keeps an allow rule from applying (each command still needs its rule)."""
        return self.opaque is None and all(c.opaque is None for c in self.commands)


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def analyse(line: str, *, depth: int = 0) -> Analysis:
    """Collect every command ``line`` would run. Never raises."""
    result = Analysis(line=line)
    if len(line) > MAX_COMMAND_CHARS:
        result.opaque = Opaque.TOO_LONG
        return result
    if "\x00" in line:
        result.opaque = Opaque.PARSE_ERROR
        return result
    data = line.encode("utf-8", "surrogatepass")
    tree = _parser().parse(data)
    if tree.root_node.has_error:
        result.opaque = Opaque.PARSE_ERROR
    _Walker(result, depth).statement(tree.root_node)
    return result


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


class _Walker:
    def __init__(self, result: Analysis, depth: int) -> None:
        self.result = result
        self.depth = depth

    # -- statements -------------------------------------------------------------------------
    def statement(self, node: tree_sitter.Node) -> None:
        kind = node.type
        if kind in _STATEMENT_CONTAINERS:
            if kind not in ("case_statement", "case_item") and any(c.type in (";;", ";&", ";;&") for c in node.children):
                self.result.opaque = Opaque.PARSE_ERROR  # bash refuses ";;" outside case; so do we
            for child in node.named_children:
                if child.type in _REDIRECTS:
                    self.redirect(child)
                elif child.type in ("comment", "variable_name", "heredoc_body", "heredoc_start"):
                    continue
                elif _is_statement(child):
                    self.statement(child)
                else:
                    self.substitutions(child)  # for/case values, conditions
            return
        if kind == "command":
            self.command(node)
        elif kind in ("comment",):
            return
        elif kind == "function_definition":
            self.opaque_statement(node, Opaque.FUNCTION_DEFINITION)
            self.substitutions(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            assigns = [node] if kind == "variable_assignment" else [c for c in node.named_children]
            names = tuple(_text(a.child_by_field_name("name") or a).split("=")[0] for a in assigns)
            bad = any(n not in SAFE_ASSIGNMENTS for n in names)
            self.result.commands.append(Command(argv=(), text=_text(node), assignments=names, transparent=not bad,
                                                opaque=Opaque.UNSAFE_ASSIGNMENT if bad else None))
            self.substitutions(node)
        elif kind in ("test_command",):
            # [[ … ]] runs nothing itself; its substitutions are collected.
            self.result.commands.append(Command(argv=(Word("[[", "[["),), text=_text(node), transparent=True))
            self.substitutions(node)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node)
        elif kind in _REDIRECTS:
            self.redirect(node)
        else:
            self.opaque_statement(node, Opaque.UNSUPPORTED)
            self.substitutions(node)

    def opaque_statement(self, node: tree_sitter.Node, why: Opaque) -> None:
        self.result.commands.append(Command(argv=(), text=_text(node), opaque=why))

    def declaration(self, node: tree_sitter.Node) -> None:
        argv: list[Word] = [Word(_text(node.children[0]), _text(node.children[0]))]
        opaque: Opaque | None = None
        for child in node.named_children:
            if child.type == "variable_assignment":
                name = _text(child.child_by_field_name("name") or child).split("=")[0]
                if name not in SAFE_ASSIGNMENTS:
                    opaque = Opaque.UNSAFE_ASSIGNMENT
                argv.append(Word(None, _text(child)))
            else:
                argv.append(self.word(child))
            self.substitutions(child)
        if argv[0].value in ("unset", "unsetenv"):
            opaque = opaque or None
        self.result.commands.append(Command(argv=tuple(argv), text=_text(node), opaque=opaque))

    def command(self, node: tree_sitter.Node) -> None:
        argv: list[Word] = []
        assignments: list[str] = []
        opaque: Opaque | None = None
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment":
                name = _text(child.child_by_field_name("name") or child).split("=")[0]
                assignments.append(name)
                if name not in SAFE_ASSIGNMENTS:
                    opaque = Opaque.UNSAFE_ASSIGNMENT
                self.substitutions(child)
            elif kind in _REDIRECTS:
                self.redirect(child)
            elif kind == "command_name":
                inner = child.named_children[0] if child.named_children else child
                word = self.word(inner)
                if word.value is None:
                    opaque = opaque or Opaque.EXPANSION_IN_COMMAND
                argv.append(word)
                self.substitutions(child)
            elif kind == "comment":
                continue
            else:
                argv.append(self.word(child))
                self.substitutions(child)
        text = _text(node)
        command = Command(argv=tuple(argv), text=text, assignments=tuple(assignments), opaque=opaque)
        self.result.commands.append(self.classify(command))

    def classify(self, command: Command) -> Command:
        """Mark evaluators, elevators, ``bash -c``, ``cd`` (the opaque ones cannot be allowed)."""
        if command.opaque is not None or not command.argv:
            return command
        program = command.program or ""
        base = program.rsplit("/", 1)[-1]
        if base in EVALUATORS:
            return _with(command, Opaque.EVAL)
        if base in ELEVATORS:
            return _with(command, Opaque.ELEVATION)
        if base == "env" and any((w.value or "").startswith(("-S", "--split-string")) for w in command.argv[1:]):
            return _with(command, Opaque.ELEVATION)
        if base == "cd" or base == "pushd" or base == "popd":
            self.result.changes_directory = True
            return command  # the engine decides inside/outside (it knows the workspace)
        if base in SHELLS and program == base:
            return self.nested_shell(command)
        return command

    def nested_shell(self, command: Command) -> Command:
        """``bash -c '<literal>'``: parse the literal; anything else running a shell is opaque."""
        args = command.argv[1:]
        if len(args) >= 2 and args[0].value == "-c" and args[1].value is not None and len(args) == 2:
            if self.depth >= MAX_NESTING:
                return _with(command, Opaque.UNSUPPORTED)
            inner = analyse(args[1].value, depth=self.depth + 1)
            self.result.commands.extend(inner.commands)
            self.result.redirects.extend(inner.redirects)
            self.result.changes_directory |= inner.changes_directory
            if inner.opaque is not None:
                return _with(command, inner.opaque)
            return Command(argv=command.argv, text=command.text, assignments=command.assignments, transparent=True)
        if any(w.value is None or (w.value.startswith("-") and "c" in w.value) for w in args):
            return _with(command, Opaque.EVAL)
        return command  # ``bash script.sh``: an ordinary command, allowed only by a rule naming it

    # -- words and redirections ---------------------------------------------------------------
    def word(self, node: tree_sitter.Node) -> Word:
        raw = _text(node)
        return Word(_static_value(node), raw)

    def redirect(self, node: tree_sitter.Node) -> None:
        self.substitutions(node)
        if node.type == "heredoc_redirect":
            self.heredoc(node)
            return
        if node.type != "file_redirect":
            return  # here-strings feed text, not files (their substitutions are collected)
        operator = ""
        destination: tree_sitter.Node | None = None
        for child in node.children:
            if not child.is_named:
                operator = _text(child)
            elif child.type != "file_descriptor":
                destination = child
        if destination is None:
            return
        if (operator in (">&", "<&", ">&-", "<&-") and _text(destination).isdigit()) or _text(destination) == "-":
            return  # duplicating or closing a descriptor
        write = operator != "<"
        self.result.redirects.append(Redirect(target=self.word(destination), write=write, text=_text(node)))

    def heredoc(self, node: tree_sitter.Node) -> None:
        """An unquoted here-document runs the substitutions in its body. The grammar finds
        ``$(…)`` there but not backticks: any backtick (or a ``$(`` it left as text) makes the
        line opaque rather than risk a command nobody collected."""
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        if start is None or any(q in _text(start) for q in "'\"\\"):
            return  # <<'EOF': the body is literal text
        for body in (c for c in node.children if c.type == "heredoc_body"):
            literal = [body] if not body.named_children else [c for c in body.named_children
                                                              if c.type == "heredoc_content"]
            texts = [_text(piece) if piece is not body else _text(body) for piece in literal]
            if any("`" in t or "$(" in t for t in texts) or "`" in _text(body):
                self.result.opaque = Opaque.UNSUPPORTED

    def substitutions(self, node: tree_sitter.Node) -> None:
        """Collect the commands inside ``$(…)``, backticks, ``<(…)``/``>(…)`` anywhere below ``node``."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in _SUBSTITUTIONS:
                for child in current.named_children:
                    if _is_statement(child) or child.type in _REDIRECTS:
                        self.statement(child)
                    else:
                        self.substitutions(child)
                continue
            if current.type == "ERROR":
                self.result.opaque = Opaque.PARSE_ERROR
            stack.extend(reversed(current.children))


def _with(command: Command, why: Opaque) -> Command:
    return Command(argv=command.argv, text=command.text, assignments=command.assignments, opaque=why)


def _is_statement(node: tree_sitter.Node) -> bool:
    return node.type in _STATEMENT_CONTAINERS or node.type in (
        "command", "function_definition", "variable_assignment", "variable_assignments", "test_command",
        "declaration_command", "unset_command",
    )


def _static_value(node: tree_sitter.Node) -> str | None:
    """The word's value after quote removal, or ``None`` when only known at run time."""
    kind = node.type
    if kind == "word" or kind == "number":
        return _unquoted_word(_text(node))
    if kind == "raw_string":
        text = _text(node)
        return text[1:-1]
    if kind == "string":
        parts: list[str] = []
        for child in node.children:
            if not child.is_named:
                continue
            if child.type != "string_content":
                return None
            parts.append(_text(child))
        inner = "".join(parts)
        return re.sub(r"\\([\\$`\"\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), inner)
    if kind == "concatenation":
        words = "".join(_text(c) for c in node.children if c.type == "word")
        if _BRACE.search(words):
            return None
        values = [_static_value(c) for c in node.children]
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
        if ch in "*?[":
            return None
        out.append(ch)
    value = "".join(out)
    if _BRACE.search(text) or ("$" in text and not text.endswith("$")):
        return None
    return value
