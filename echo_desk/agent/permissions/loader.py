"""Reading one rule file: TOML → ``Rule``s with file and line, examples checked, all or nothing.

Line numbers: ``tomllib`` reports none for values, so the loader scans the text for the
``[[rule]]`` headers (a line whose first non-blank characters are ``[[rule]]``, optionally with
spaces inside the brackets and a trailing comment) and pairs the n-th header with the n-th
table. Should the count differ (a header inside a multi-line string), lines are not guessed:
each rule gets line 0 and a warning says so. Syntax errors carry tomllib's own line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.agent.permissions.compiled import Compiled, NamedGrammar, compile_pattern, family_of
from echo_desk.agent.permissions.model import (
    OWN_AGENT,
    Effect,
    Examples,
    Family,
    Inactive,
    Layer,
    LoadProblem,
    ProblemKind,
    Rule,
    RuleSource,
    Severity,
)
from echo_desk.agent.permissions.tokens import PatternError
from echo_desk.agent.permissions.toml_said import toml_problem
from echo_desk.common.explain import refused
from echo_desk.i18n import N_, Deferred, for_person

_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*rule[ \t]*\]\][ \t]*(#.*)?$")
_KEYS = frozenset({"effect", "tool", "pattern", "reason", "examples", "client"})
#: A ``client`` value: an MCP client's name as the gateway knows it, ``*`` (any of them) or
#: ``@chat`` (Echo Desk's own agent).
_CLIENT = re.compile(r"\*|" + re.escape(OWN_AGENT) + r"|[a-z0-9][a-z0-9._-]{0,63}")
MAX_RULES_PER_FILE = 5000
MAX_FILE_BYTES = 2_000_000

#: Checks one example against one compiled rule: True when the rule matches it.
ExampleCheck = Callable[[Compiled, str], bool]


@dataclass(frozen=True)
class LoadedFile:
    """One file's outcome: its rules (empty when it had any error) and its problems."""

    path: Path
    rules: tuple[Compiled, ...]
    problems: tuple[LoadProblem, ...]
    sha256: str | None


def rule_lines(text: str) -> list[int]:
    """1-based line numbers of the ``[[rule]]`` headers in ``text``."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if _HEADER.match(line)]


def parse_rules(
    text: str,
    path: Path,
    layer: Layer,
    check_example: ExampleCheck,
    *,
    inactive_allow: Inactive | None = None,
    named: NamedGrammar | None = None,
) -> tuple[list[Compiled], list[LoadProblem]]:
    """Parse ``text``. Any error → no rules (the file is refused as a whole). ``named`` gives the
    grammar of a rule naming a registered tool (its declared family)."""
    problems: list[LoadProblem] = []

    def error(kind: ProblemKind, line: int, message: str, example: str = "") -> None:
        problems.append(LoadProblem(severity=Severity.ERROR, kind=kind, path=path, line=line,
                                    message=message, example=example))

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        error(ProblemKind.TOML_SYNTAX, *toml_problem(exc, text))
        return [], problems
    extra = sorted(set(data) - {"rule"})
    if extra:
        error(ProblemKind.BAD_RULE, 0, for_person(
            f"unknown top-level key {extra[0]!r}: a rule file holds only [[rule]] tables",
            N_("unknown key “{key}” outside a rule: a rule file holds only [[rule]] tables"), key=extra[0]))
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        error(ProblemKind.BAD_RULE, 0, for_person(
            "'rule' must be an array of tables: write each rule under [[rule]]",
            N_("“rule” must be a list of tables: write each rule under [[rule]]")))
        return [], problems
    if len(tables) > MAX_RULES_PER_FILE:
        error(ProblemKind.BAD_RULE, 0, for_person(
            f"{len(tables)} rules (limit {MAX_RULES_PER_FILE})",
            N_("it has {count} rules, more than the {limit} a rule file may hold"), count=len(tables),
            limit=MAX_RULES_PER_FILE))
        return [], problems
    lines = rule_lines(text)
    if len(lines) != len(tables):
        problems.append(LoadProblem(severity=Severity.WARNING, kind=ProblemKind.BAD_RULE, path=path, line=0,
                                    message=for_person(
                                        "could not tell which line each [[rule]] starts on; lines are shown as 0",
                                        N_("could not tell which line each [[rule]] starts on; lines are shown "
                                           "as 0"))))
        lines = [0] * len(tables)
    compiled: list[Compiled] = []
    for table, line in zip(tables, lines, strict=True):
        result = _one_rule(table, path, line, layer, inactive_allow, check_example, error, named)
        if result is not None:
            compiled.append(result)
    if any(p.severity is Severity.ERROR for p in problems):
        return [], problems
    return compiled, problems


def _one_rule(
    table: Any,
    path: Path,
    line: int,
    layer: Layer,
    inactive_allow: Inactive | None,
    check_example: ExampleCheck,
    error: Callable[..., None],
    named: NamedGrammar | None,
) -> Compiled | None:
    if not isinstance(table, dict):
        error(ProblemKind.BAD_RULE, line, for_person("a rule must be a table", N_("a rule must be a table")))
        return None
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        error(ProblemKind.BAD_RULE, line, for_person(
            f"unknown key {unknown[0]!r} (keys: effect, tool, pattern, reason, examples, client)",
            N_("unknown key “{key}” (a rule's keys: effect, tool, pattern, reason, examples, client)"),
            key=unknown[0]))
        return None
    try:
        effect = Effect(str(table.get("effect")))
    except ValueError:
        error(ProblemKind.BAD_RULE, line, for_person(
            f"effect must be allow, allow-in-sandbox, ask or deny, not {table.get('effect')!r}",
            N_("effect must be allow, allow-in-sandbox, ask or deny, not “{effect}”"), effect=str(table.get("effect"))))
        return None
    tool = table.get("tool")
    if not isinstance(tool, str):
        error(ProblemKind.BAD_RULE, line, for_person(
            "tool is required (shell, read, write, fetch, mcp:<server>, db:<name> or a tool)",
            N_("tool is required (shell, read, write, fetch, mcp:<server>, db:<name> or a tool's name)")))
        return None
    try:
        family = family_of(tool, named)
    except ValueError as exc:
        error(ProblemKind.BAD_RULE, line, _said(exc))
        return None
    if effect is Effect.ALLOW_IN_SANDBOX and family is not Family.SHELL:
        error(ProblemKind.BAD_RULE, line, for_person(
            f"allow-in-sandbox applies to commands only (tool shell or run_command), not {tool!r}",
            N_("allow-in-sandbox applies to commands only (tool shell or run_command), not “{tool}”"), tool=tool))
        return None
    pattern = table.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        error(ProblemKind.BAD_RULE, line, for_person("pattern must be a string", N_("pattern must be a text in quotes")))
        return None
    reason = table.get("reason", "")
    if not isinstance(reason, str):
        error(ProblemKind.BAD_RULE, line, for_person("reason must be a string", N_("reason must be a text in quotes")))
        return None
    try:
        matcher = compile_pattern(family, pattern)
    except PatternError as exc:
        error(ProblemKind.BAD_RULE, line, _said(exc))
        return None
    examples = _examples(table.get("examples"), line, error)
    clients = _clients(table.get("client"), line, error)
    if examples is None or clients is None:
        return None
    rule = Rule(
        effect=effect, tool=tool, family=family, pattern=pattern, reason=reason, examples=examples,
        source=RuleSource(layer=layer, path=path, line=line),
        inactive=inactive_allow if effect.allows else None, clients=clients,
    )
    built = Compiled(tool=tool, family=family, matcher=matcher, rule=rule)
    for example in examples.match:
        if not check_example(built, example):
            error(ProblemKind.EXAMPLE_FAILED, line,
                  f"the rule's example {example!r} in 'match' does not match the rule {rule.describe()}", example)
            return None
    for example in examples.not_match:
        if check_example(built, example):
            error(ProblemKind.EXAMPLE_FAILED, line,
                  f"the rule's example {example!r} in 'not_match' matches the rule {rule.describe()}", example)
            return None
    return built


def _clients(value: Any, line: int, error: Callable[..., None]) -> tuple[str, ...] | None:
    """``client = "cursor"`` or ``client = ["cursor", "vscode"]`` (``"*"``: any MCP client;
    ``"@chat"``: Echo Desk's own agent)."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if (not isinstance(items, list) or not items
            or not all(isinstance(i, str) and _CLIENT.fullmatch(i) for i in items)):
        error(ProblemKind.BAD_RULE, line, for_person(
            'client must be an MCP client\'s name as the gateway knows it (lower case: "cursor", '
            '"claude-code"), "*" for any of them, "@chat" for Echo Desk\'s own chat, or a list of those',
            N_("client must be an MCP client's name as the gateway knows it (lower case: “cursor”, "
               "“claude-code”), “*” for any of them, “@chat” for Echo Desk's own chat, or a list of those")))
        return None
    return tuple(dict.fromkeys(items))


def _examples(value: Any, line: int, error: Callable[..., None]) -> Examples | None:
    if value is None:
        return Examples()
    if not isinstance(value, dict) or set(value) - {"match", "not_match"}:
        error(ProblemKind.BAD_RULE, line, for_person("examples must be { match = [...], not_match = [...] }",
                                                     N_("examples must be { match = [...], not_match = [...] }")))
        return None
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("match", "not_match"):
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            error(ProblemKind.BAD_RULE, line, for_person(f"examples.{key} must be a list of strings",
                                                         N_("examples.{key} must be a list of texts in quotes"), key=key))
            return None
        lists[key] = tuple(items)
    return Examples(match=lists["match"], not_match=lists["not_match"])


def read_rule_file(
    path: Path, layer: Layer, check_example: ExampleCheck, *, inactive_allow: Inactive | None = None,
    named: NamedGrammar | None = None,
) -> tuple[list[Compiled], list[LoadProblem], str]:
    """Read and parse one file (missing file = no rules, no problem). Returns the text too."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return [], [], ""
    except OSError as exc:
        return [], [LoadProblem(severity=Severity.ERROR, kind=ProblemKind.UNREADABLE, path=path, line=0,
                                message=_said_too(f"cannot read: {exc}", refused(exc)))], ""
    return parse_rule_bytes(raw, path, layer, check_example, inactive_allow=inactive_allow, named=named)


def _said(exc: Exception) -> str:
    """``exc``'s words: its ``for_person`` message when it has one (Settings says it in the person's
    language, ``rules check`` its English), else its own text."""
    message = exc.args[0] if len(exc.args) == 1 else None
    return message if isinstance(message, Deferred) else str(exc)


def _said_too(model_text: str, said: str) -> str:
    """``model_text`` (English, for ``rules check`` and the log) shown to the person as ``said``
    (``deferred``) in the language of the moment: Settings lists a file's problems."""
    assert isinstance(said, Deferred)
    return for_person(model_text, said.msgid, **said.params)


def parse_rule_bytes(
    raw: bytes, path: Path, layer: Layer, check_example: ExampleCheck, *, inactive_allow: Inactive | None = None,
    named: NamedGrammar | None = None,
) -> tuple[list[Compiled], list[LoadProblem], str]:
    """Parse a rule file's bytes as read once (trust binds to exactly these)."""
    if len(raw) > MAX_FILE_BYTES:
        return [], [LoadProblem(severity=Severity.ERROR, kind=ProblemKind.UNREADABLE, path=path, line=0,
                                message=for_person(f"file is {len(raw)} bytes (limit {MAX_FILE_BYTES})",
                                                   N_("it is {size} bytes, more than the {limit} a rule file may hold"),
                                                   size=len(raw), limit=MAX_FILE_BYTES))], ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [LoadProblem(severity=Severity.ERROR, kind=ProblemKind.UNREADABLE, path=path,
                                line=raw[: exc.start].count(b"\n") + 1,
                                message=for_person("not UTF-8 text", N_("it is not UTF-8 text")))], ""
    rules, problems = parse_rules(text, path, layer, check_example, inactive_allow=inactive_allow, named=named)
    return rules, problems, text
