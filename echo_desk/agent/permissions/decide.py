"""The verdict for one subject, from compiled rules and grants (no I/O here but ``realpath``).

Precedence: floor → deny → ask → allow (rules, then grants) → allow-in-sandbox → nothing (the
tool's policy and risk defaults). An allow of a shell line needs *every* collected command
allowed, every redirection target allowed by the write rules, and nothing opaque. A line whose
parts are all allowed, some only in the sandbox, is ``ALLOW_IN_SANDBOX`` as a whole: it runs
without asking only where the sandbox contains it (``policy.approval_for`` decides that).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from echo_desk.agent.permissions import floor, programs
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.model import (
    Decider,
    Effect,
    Examples,
    Family,
    Opaque,
    Part,
    Provenance,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.shell import Analysis, Command, Redirect, Word, analyse
from echo_desk.agent.permissions.subjects import Subject
from echo_desk.agent.permissions.tokens import Match, TokenPattern, compile_tokens
from echo_desk.sandbox.urls import BadUrl, canonical_url

#: Redirection targets that are never files anyone cares about.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_MAX_UNWRAP = 4
#: A name standing for "anything inside this folder" when a path may be a folder.
_INSIDE = "any-file"


class Bucket:
    """Compiled shell rules indexed by the first one or two plain tokens they start with, so a
    command is matched only against rules that can match it (in file order)."""

    def __init__(self, items: Sequence[Compiled]) -> None:
        self.items = list(items)
        self._one: dict[str, list[int]] = {}  # rules whose plain prefix is one token
        self._two: dict[tuple[str, str], list[int]] = {}  # … two tokens (or more)
        self._head: dict[str, list[int]] = {}  # every rule starting with that token
        self._anywhere: list[int] = []
        for i, item in enumerate(self.items):
            matcher = item.matcher
            prefixes = matcher.prefixes if isinstance(matcher, TokenPattern) else ((),)
            if any(not p for p in prefixes):
                self._anywhere.append(i)
                continue
            for p in set(prefixes):
                self._head.setdefault(p[0], []).append(i)
                if len(p) == 1:
                    self._one.setdefault(p[0], []).append(i)
                else:
                    self._two.setdefault((p[0], p[1]), []).append(i)

    def for_argvs(self, argvs: Sequence[Sequence[str | None]]) -> list[Compiled]:
        """The rules that may match one of ``argvs`` (a command and its unwrapped forms)."""
        found: set[int] = set(self._anywhere)
        for argv in argvs:
            if not argv or argv[0] is None:
                return self.items
            head = argv[0]
            if len(argv) > 1 and argv[1] is not None:
                found.update(self._one.get(head, ()))
                found.update(self._two.get((head, argv[1]), ()))
            else:
                found.update(self._head.get(head, ()))
        return [self.items[i] for i in sorted(found)]


@dataclass
class Rules:
    """The active compiled rules for a subject, by effect, plus its grants (allow-only)."""

    deny: Sequence[Compiled]
    ask: Sequence[Compiled]
    allow: Sequence[Compiled]
    grants: Sequence[Compiled]
    #: Shell rules with the effect allow-in-sandbox (consulted after allow rules and grants).
    sandbox_allow: Sequence[Compiled] = ()
    #: Path rules for shell redirections (write and read families).
    write: Sequence[Compiled] = ()
    read: Sequence[Compiled] = ()
    buckets: dict[str, Bucket] | None = None

    def bucket(self, name: str) -> Bucket:
        """``deny`` / ``ask`` / ``allow`` / ``grants`` / ``sandbox_allow`` indexed by program (built once)."""
        if self.buckets is None:
            self.buckets = {}
        found = self.buckets.get(name)
        if found is None:
            found = self.buckets[name] = Bucket(getattr(self, name))
        return found


def provenance_of(item: Compiled) -> Provenance:
    if item.grant is not None:
        return Provenance(kind=Decider.GRANT, grant=item.grant)
    assert item.rule is not None
    kind = Decider.FLOOR if item.rule.source.path is None else Decider.RULE
    return Provenance(kind=kind, rule=item.rule)


def _floor(rule: object, detail: str = "") -> Provenance:
    return Provenance(kind=Decider.FLOOR, rule=rule, detail=detail)  # type: ignore[arg-type]


# -- shell ----------------------------------------------------------------------------------
def _variants(argv: Sequence[str | None]) -> list[list[str | None]]:
    """argv as written, with the program's folder dropped, and unwrapped (for deny matching)."""
    out: list[list[str | None]] = []
    current: list[str | None] = list(argv)
    for _ in range(_MAX_UNWRAP):
        if not current:
            break
        out.append(current)
        if current[0] is not None and "/" in current[0]:
            out.append([programs.base(current[0]), *current[1:]])
        inner = programs.unwrap([programs.base(current[0]), *current[1:]]) if current[0] else None
        if inner is None:
            break
        current = inner[1]
    return out


def loose_match(matcher: TokenPattern | None, argv: Sequence[str | None],
                variants: list[list[str | None]] | None = None) -> Match:
    """How well a deny/ask pattern matches ``argv`` or any unwrapped form of it."""
    if matcher is None:
        return Match.YES
    best = Match.NO
    for variant in variants if variants is not None else _variants(argv):
        best = max(best, matcher.match(variant))
        if best is Match.YES:
            break
    return best


def allows(matcher: TokenPattern | None, argv: Sequence[str | None]) -> bool:
    """Whether an allow pattern covers ``argv`` exactly as written (dangerous options named)."""
    if matcher is not None and matcher.match(argv) is not Match.YES:
        return False
    found = programs.dangerous(argv)
    if found is None:
        return False
    if matcher is None:
        return not found
    return all(matcher.names(key, token) for key, token in found)


def _allowed_by(argv: list[str | None], candidates: Sequence[Compiled] | Bucket, depth: int = 0) -> Compiled | None:
    """The first allow rule or grant covering ``argv``; a wrapper needs its inner command
    covered too (and a non-benign wrapper its own rule as well)."""
    pool = candidates.for_argvs([argv]) if isinstance(candidates, Bucket) else candidates
    direct = next((c for c in pool if allows(c.matcher, argv)), None)
    inner = programs.unwrap(argv) if argv and depth < _MAX_UNWRAP else None
    if inner is None:
        return direct
    wrapper, rest = inner
    if wrapper == "env":
        prefix = argv[1:len(argv) - len(rest)]
        if any(t is None or t.startswith("-") or t.split("=")[0] not in _safe() for t in prefix):
            return direct if direct is not None and _allowed_by(rest, candidates, depth + 1) else None
    inner_rule = _allowed_by(rest, candidates, depth + 1)
    if inner_rule is None:
        return None
    if wrapper in programs.BENIGN_WRAPPERS or wrapper == "env":
        return direct or inner_rule
    return direct  # xargs, exec…: the wrapper itself must be allowed as well


def _safe() -> frozenset[str]:
    from echo_desk.agent.permissions.shell import SAFE_ASSIGNMENTS

    return SAFE_ASSIGNMENTS


def shell_verdict(subject: Subject, rules: Rules, where: floor.Where, *, suggest: bool = True) -> Verdict:
    analysis = analyse(subject.command)
    parts: list[Part] = []
    undecided: list[Command] = []
    for command in analysis.commands:
        parts.append(_command_part(command, rules, where, moved=analysis.changes_directory))
        if parts[-1].effect is None:
            undecided.append(command)
    for redirect in analysis.redirects:
        parts.append(_redirect_part(redirect, rules, where, analysis))
    if analysis.opaque is not None:
        parts.append(Part(text=subject.command[:200], effect=Effect.ASK, kind="command", opaque=analysis.opaque,
                          provenance=Provenance(kind=Decider.OPAQUE, detail=analysis.opaque.value)))
    suggestions = _suggestions(analysis, undecided) if suggest else ()
    return _combine(parts, suggestions, opaque_line=analysis.opaque is not None)


def _command_part(command: Command, rules: Rules, where: floor.Where, *, moved: bool = False) -> Part:
    values = [w.value for w in command.argv]
    text = command.text

    def part(effect: Effect | None, provenance: Provenance, opaque: Opaque | None = None) -> Part:
        return Part(text=text, effect=effect, provenance=provenance, argv=tuple(v or "" for v in values),
                    opaque=opaque or command.opaque)

    floor_effect = floor.rm_effect(command.argv, where, moved=moved)
    if floor_effect is Effect.DENY:
        return part(Effect.DENY, _floor(floor.RM_ROOTS))
    variants = _variants(values)
    for item in rules.bucket("deny").for_argvs(variants or [[None]]):
        m = loose_match(item.matcher, values, variants)
        if m is Match.YES:
            return part(Effect.DENY, provenance_of(item))
        if m is Match.MAYBE:
            return part(Effect.ASK, provenance_of(item))
    asking = _words_naming_denied_paths(command, rules, where)
    if asking is not None:
        return part(Effect.ASK, asking)
    if floor_effect is Effect.ASK:
        return part(Effect.ASK, _floor(floor.RM_ROOTS, "target only known when it runs"))
    for item in rules.bucket("ask").for_argvs(variants or [[None]]):
        if loose_match(item.matcher, values, variants) is not Match.NO:
            return part(Effect.ASK, provenance_of(item))
    return _by_shape_and_allow_rules(command, values, rules, where, part)


class PartMaker(Protocol):
    """Makes the command's ``Part`` with a verdict (see ``_command_part``)."""

    def __call__(self, effect: Effect | None, provenance: Provenance, opaque: Opaque | None = None) -> Part: ...


def _by_shape_and_allow_rules(command: Command, values: list[str | None], rules: Rules, where: floor.Where,
                              part: PartMaker) -> Part:
    """What no deny, ask or floor rule decided: opaque commands stay undecided, a ``cd`` inside the
    workspace and a wrapper are allowed, the rest only by an allow rule, a grant or allow-in-sandbox."""
    if command.opaque is Opaque.ELEVATION:
        return part(Effect.ASK, Provenance(kind=Decider.OPAQUE, detail=Opaque.ELEVATION.value))
    if command.opaque is not None:
        return part(None, Provenance(kind=Decider.OPAQUE, detail=command.opaque.value))
    if command.program in ("cd", "pushd", "popd"):
        target = _cd_target(command, where)
        if target is None or not floor.inside(target, where.workspaces):
            return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.CD_OUTSIDE.value), Opaque.CD_OUTSIDE)
        return part(Effect.ALLOW, Provenance(kind=Decider.DEFAULT, detail="cd inside the workspace"))
    if command.transparent:
        return part(Effect.ALLOW, Provenance(kind=Decider.DEFAULT, detail="runs only the commands listed with it"))
    if any(v is None for v in values[:1]):
        return part(None, Provenance(kind=Decider.OPAQUE, detail=Opaque.EXPANSION_IN_COMMAND.value),
                    Opaque.EXPANSION_IN_COMMAND)
    chosen = _allowed_by(values, rules.bucket("allow")) or _allowed_by(values, rules.grants)
    if chosen is not None:
        return part(Effect.ALLOW, provenance_of(chosen))
    in_sandbox = _allowed_by(values, rules.bucket("sandbox_allow")) if rules.sandbox_allow else None
    if in_sandbox is not None:
        return part(Effect.ALLOW_IN_SANDBOX, provenance_of(in_sandbox))
    return part(None, Provenance(kind=Decider.DEFAULT, detail="no rule matches"))


def _words_naming_denied_paths(command: Command, rules: Rules, where: floor.Where) -> Provenance | None:
    """Why to ask when a word of ``command`` may name a path a read/write deny rule (or the floor's
    own settings) covers; ``None`` when none does."""
    path_denies = [c for c in (*rules.read, *rules.write)
                   if c.rule is not None and c.rule.effect is Effect.DENY and c.matcher is not None]
    for w in command.argv:
        if w.value is None and path_denies and not w.raw.startswith(("<(", ">(")):
            # Only known when it runs ($x, $(…), a glob): it may name a denied path.
            return provenance_of(path_denies[0])
        target = _path_of(w, where)
        if target is None:
            continue
        if floor.inside(target, where.protected):
            return _floor(floor.OWN_SETTINGS_NAMED)
        # A word naming a path a read/write rule denies: the program may well read or write it.
        real = Path(os.path.realpath(target))
        # ...or a folder holding such paths (``grep -r x ~/.ssh``): try a file inside it too.
        forms = {target, real, target / "any-file", real / "any-file"}
        for item in path_denies:
            if any(item.matcher.match(f, workspaces=where.workspaces, home=where.home) is Match.YES for f in forms):
                return provenance_of(item)
            # A folder above what the rule denies (``grep -r x ~``): a recursive program reaches it.
            bases = item.matcher.bases(workspaces=where.workspaces, home=where.home)
            if any(b == f or f in b.parents for b in bases for f in (target, real)):
                return provenance_of(item)
    return None


def _cd_target(command: Command, where: floor.Where) -> Path | None:
    args = [w for w in command.argv[1:] if not (w.value or "").startswith("-") or w.value is None]
    if command.program != "cd" or len(args) != 1 or args[0].value is None or args[0].value == "":
        return None
    value = args[0].value
    if value == "~" or value.startswith("~/"):
        value = str(where.home) + value[1:]
    elif value.startswith("~"):
        return None
    return Path(os.path.realpath(where.cwd / value))


def _path_of(word: Word, where: floor.Where) -> Path | None:
    value = word.value
    if value is None or not value or value.startswith("-"):
        return None
    if value.startswith("~"):
        if value != "~" and not value.startswith("~/"):
            return None
        value = str(where.home) + value[1:]
    elif "/" not in value and not value.startswith("."):
        return None  # a plain word: not clearly a path
    path = Path(value) if os.path.isabs(value) else where.cwd / value
    return Path(os.path.normpath(path))


def _redirect_part(redirect: Redirect, rules: Rules, where: floor.Where, analysis: Analysis) -> Part:
    value = redirect.target.value
    kind = "redirect"
    if value in HARMLESS_TARGETS:
        return Part(text=redirect.text, effect=Effect.ALLOW, kind=kind,
                    provenance=Provenance(kind=Decider.DEFAULT, detail="harmless target"))
    if value is None:
        may_deny = bool(rules.write if redirect.write else rules.read)
        return Part(text=redirect.text, effect=Effect.ASK if may_deny else None, kind=kind,
                    opaque=Opaque.DYNAMIC_ARGUMENT,
                    provenance=Provenance(kind=Decider.OPAQUE, detail=Opaque.DYNAMIC_ARGUMENT.value))
    raw = value
    if raw.startswith("~"):
        raw = str(where.home) + raw[1:] if raw == "~" or raw.startswith("~/") else raw
    relative = not os.path.isabs(raw)
    path = Path(os.path.normpath(where.cwd / raw))
    verdict = path_verdict([path], redirect.write, rules.write if redirect.write else rules.read, where,
                           text=redirect.text, kind=kind)
    if verdict.effect is Effect.ALLOW and relative and analysis.changes_directory:
        return Part(text=redirect.text, effect=None, kind=kind,
                    provenance=Provenance(kind=Decider.OPAQUE, detail="relative target after cd"))
    if verdict.effect is None and rules.sandbox_allow and not (relative and analysis.changes_directory) \
            and floor.inside(Path(os.path.realpath(path)), where.workspaces):
        # No rule spoke about a file inside the workspace: where the sandbox contains the
        # command, its writes cannot leave the workspace anyway (deny and ask rules came first).
        return Part(text=redirect.text, effect=Effect.ALLOW_IN_SANDBOX, kind=kind,
                    provenance=Provenance(kind=Decider.DEFAULT, detail="a file inside the workspace, in the sandbox"))
    return verdict.parts[0]


def _combine(parts: list[Part], suggestions: tuple[Suggestion, ...], *, opaque_line: bool = False) -> Verdict:
    if not parts:
        return Verdict(effect=None, provenance=None, parts=(), suggestions=suggestions)
    for effect in (Effect.DENY, Effect.ASK):
        first = next((p for p in parts if p.effect is effect), None)
        if first is not None:
            return Verdict(effect=effect, provenance=first.provenance, parts=tuple(parts), suggestions=suggestions)
    if all(p.effect is not None and p.effect.allows for p in parts) and not opaque_line:
        only_sandbox = [p for p in parts if p.effect is Effect.ALLOW_IN_SANDBOX]
        effect = Effect.ALLOW_IN_SANDBOX if only_sandbox else Effect.ALLOW
        deciders = [p for p in (only_sandbox or parts) if p.provenance.kind in (Decider.RULE, Decider.GRANT)]
        decider = deciders[0] if deciders else (only_sandbox or parts)[0]
        return Verdict(effect=effect, provenance=decider.provenance, parts=tuple(parts), suggestions=suggestions)
    return Verdict(effect=None, provenance=None, parts=tuple(parts), suggestions=suggestions)


_SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "pip", "pip3", "uv", "poetry", "make",
    "dotnet", "gradle", "mvn", "bundle", "rake", "brew", "apt", "systemctl", "gh", "hg", "svn", "conda",
})


def _plain(token: str) -> bool:
    return bool(token) and all(c.isalnum() or c in "._-:/@+=,%" for c in token) and token.isascii()


def _suggestions(analysis: Analysis, undecided: list[Command]) -> tuple[Suggestion, ...]:
    """One narrow rule per collected, understood command that no rule decided (none for an
    opaque line or command, none that would not allow its own command)."""
    if analysis.opaque is not None:
        return ()
    seen: set[str] = set()
    out: list[Suggestion] = []
    for command in undecided:
        if command.opaque is not None or command.transparent or not command.argv:
            continue
        values: list[str | None] = [w.value for w in command.argv]
        while True:  # suggest the command a benign wrapper runs, not the wrapper
            inner = programs.unwrap(values)
            if inner is None or inner[0] not in programs.BENIGN_WRAPPERS:
                break
            values = inner[1]
        program = values[0]
        if program is None or not _plain(program) or program in ("cd", "pushd", "popd"):
            continue
        tokens = [program]
        if program in _SUBCOMMAND_PROGRAMS and len(values) > 1 and values[1] and not values[1].startswith("-") \
                and _plain(values[1]):
            tokens.append(values[1])
        pattern = " ".join(tokens) + " **"
        if pattern in seen or not allows(compile_tokens(pattern), values):
            continue
        seen.add(pattern)
        out.append(Suggestion(tool="shell", pattern=pattern, label=command.text,
                              examples=Examples(match=(command.text,))))
    return tuple(out)


# -- paths ----------------------------------------------------------------------------------
def resolve_paths(raw: str, where: floor.Where) -> list[Path]:
    """The lexical absolute path and, when different, where its symlinks lead."""
    value = raw
    if value.startswith("~") and (value == "~" or value.startswith("~/")):
        value = str(where.home) + value[1:]
    lexical = Path(os.path.normpath(value if os.path.isabs(value) else where.cwd / value))
    resolved = Path(os.path.realpath(lexical))
    return [lexical] if resolved == lexical else [lexical, resolved]


def path_verdict(paths: list[Path], write: bool, rules_or_family: Sequence[Compiled] | Rules, where: floor.Where,
                 *, text: str, kind: str = "path") -> Verdict:
    """Deny if any form of the path matches a deny; allow only if every form matches an allow.

    The path may be a folder (a tool may list, delete, move or fill it): a deny or ask also
    matches when what is inside it would (``secret`` under ``@workspace/secret/**``), and a
    write to a folder above what a deny names (deleting ``src`` under ``@workspace/src/secret/**``)
    is denied."""
    if isinstance(rules_or_family, Rules):
        deny, ask, allow, grants = (rules_or_family.deny, rules_or_family.ask, rules_or_family.allow,
                                    rules_or_family.grants)
    else:
        deny = [c for c in rules_or_family if c.rule is not None and c.rule.effect is Effect.DENY]
        ask = [c for c in rules_or_family if c.rule is not None and c.rule.effect is Effect.ASK]
        allow = [c for c in rules_or_family if c.rule is not None and c.rule.effect is Effect.ALLOW]
        grants = [c for c in rules_or_family if c.grant is not None]

    def part(effect: Effect | None, provenance: Provenance) -> Verdict:
        p = Part(text=text, effect=effect, provenance=provenance, kind=kind)
        return Verdict(effect=effect, provenance=provenance if effect else None, parts=(p,))

    if write and any(floor.inside(p, where.protected) for p in paths):
        return part(Effect.DENY, _floor(floor.OWN_SETTINGS))

    def hit(item: Compiled, path: Path) -> bool:
        if item.matcher is None:
            return True
        return bool(item.matcher.match(path, workspaces=where.workspaces, home=where.home) is Match.YES)

    def reaches(item: Compiled) -> bool:
        """The path, or what a folder there holds, or (for a write) what lies below it."""
        if any(hit(item, p) or hit(item, p / _INSIDE) for p in paths):
            return True
        if not write or not isinstance(item.matcher, PathPattern):
            return False
        bases = item.matcher.bases(workspaces=where.workspaces, home=where.home)
        return any(p in b.parents for b in bases for p in paths)

    for item in deny:
        if reaches(item):
            return part(Effect.DENY, provenance_of(item))
    for item in ask:
        if reaches(item):
            return part(Effect.ASK, provenance_of(item))
    for pool in (allow, grants):
        deciding = [next((c for c in pool if hit(c, p)), None) for p in paths]
        if all(d is not None for d in deciding):
            assert deciding[0] is not None
            return part(Effect.ALLOW, provenance_of(deciding[0]))
    return part(None, Provenance(kind=Decider.DEFAULT, detail="no rule matches"))


# -- the other families ---------------------------------------------------------------------
def simple_verdict(subject: Subject, rules: Rules) -> Verdict:
    """fetch, mcp, db and plain tools: one part, first matching rule by precedence. A pattern
    that only may match (``Match.MAYBE``: a URL a server may read another way, an MCP path
    that climbs with ``..``) never allows; under a deny it asks."""
    def how(item: Compiled) -> Match:
        if item.matcher is None:
            return Match.YES
        if subject.family is Family.FETCH:
            return Match(item.matcher.match(subject.url, subject.method))
        if subject.family is Family.MCP:
            return Match(item.matcher.match(subject.arguments))
        if subject.family is Family.DB:
            return Match(item.matcher.match(subject.statement_class))
        return Match.NO

    text = (shown_url(subject.url) if subject.family is Family.FETCH else
            subject.connection or (f"{subject.server}/{subject.mcp_tool}" if subject.server else subject.tool))
    kind = {Family.FETCH: "url", Family.MCP: "mcp", Family.DB: "db"}.get(subject.family, "tool")

    def decided(effect: Effect, item: Compiled) -> Verdict:
        provenance = provenance_of(item)
        return Verdict(effect=effect, provenance=provenance,
                       parts=(Part(text=text, effect=effect, provenance=provenance, kind=kind),),
                       suggestions=simple_suggestions(subject))

    for item in rules.deny:
        found = how(item)
        if found is not Match.NO:
            return decided(Effect.DENY if found is Match.YES else Effect.ASK, item)
    for item in rules.ask:
        if how(item) is not Match.NO:
            return decided(Effect.ASK, item)
    for pool in (rules.allow, rules.grants):
        allowing = next((c for c in pool if how(c) is Match.YES), None)
        if allowing is not None:
            return decided(Effect.ALLOW, allowing)
    return Verdict(effect=None, provenance=None, suggestions=simple_suggestions(subject),
                   parts=(Part(text=text, effect=None, kind=kind,
                               provenance=Provenance(kind=Decider.DEFAULT, detail="no rule matches")),))


def shown_url(url: str) -> str:
    """The URL as ``fetch_url`` sends it (what the rules matched), or as given when it has no
    clear reading (then fetch_url refuses it)."""
    try:
        return canonical_url(url).text
    except BadUrl:
        return url


def simple_suggestions(subject: Subject) -> tuple[Suggestion, ...]:
    if subject.family is Family.FETCH:
        try:
            host = canonical_url(subject.url).host
        except BadUrl:
            return ()
        if not host or not _plain(host) or host.replace(".", "").isdigit() or ":" in host:
            return ()
        return (Suggestion(tool="fetch", pattern=f"domain:{host}", label=host, examples=Examples()),)
    if subject.family is Family.MCP:
        return (Suggestion(tool=f"mcp:{subject.server}/{subject.mcp_tool}", pattern=None,
                           label=f"{subject.server}/{subject.mcp_tool}"),)
    if subject.family is Family.DB and subject.connection:
        return (Suggestion(tool=f"db:{subject.connection}", pattern=subject.statement_class,
                           label=f"{subject.connection} ({subject.statement_class})"),)
    return ()
