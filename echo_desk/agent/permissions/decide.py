"""The verdict for one subject, from compiled rules and grants (no I/O here but ``realpath``).

Precedence: floor → deny → ask → allow (rules, then grants) → allow-in-sandbox → nothing (the
tool's policy and risk defaults). Shell lines are judged in ``shell_verdict`` (every part of the
line); this module holds the rule sets, the paths' verdict and the other families'. A call whose
parts are all allowed, some only in the sandbox, is ``ALLOW_IN_SANDBOX`` as a whole: it runs
without asking only where the sandbox contains it (``policy.approval_for`` decides that).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from echo_desk.agent.permissions import floor
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.model import (
    Decider,
    Effect,
    Examples,
    Family,
    Part,
    PartKind,
    Provenance,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.subjects import Subject
from echo_desk.agent.permissions.tokens import Match, TokenPattern
from echo_desk.sandbox.urls import BadUrl, canonical_url

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
        #: What ``for_argvs`` found, by the first two words of each argv (all it looks at).
        self._seen: dict[tuple[tuple[str | None, str | None], ...], list[Compiled]] = {}
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

    @property
    def heads(self) -> frozenset[str] | None:
        """The programs these rules start with (``None``: some rule may start with any)."""
        return None if self._anywhere else frozenset(self._head)

    def for_argvs(self, argvs: Sequence[Sequence[str | None]]) -> list[Compiled]:
        """The rules that may match one of ``argvs`` (a command and its unwrapped forms)."""
        key = tuple((a[0], a[1] if len(a) > 1 else "\x00") if a else (None, None) for a in argvs)
        found_before = self._seen.get(key)
        if found_before is None:
            if len(self._seen) > 1024:
                self._seen.clear()
            found_before = self._seen[key] = self._select(argvs)
        return found_before

    def _select(self, argvs: Sequence[Sequence[str | None]]) -> list[Compiled]:
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

    def granting(self, grants: Sequence[Compiled], write_grants: Sequence[Compiled] = ()) -> Rules:
        """These rules with the subject's grants, and the write grants beside the write rules
        (for shell redirections). The rules' indexes are shared: the rules are the same."""
        return replace(self, grants=list(grants), write=(*self.write, *write_grants))

    def trying(self, pending: Sequence[Compiled]) -> Rules:
        """These rules as they would be with ``pending`` allow rules active (an untrusted
        workspace's, to say what trusting it would change)."""
        plain = [c for c in pending if c.rule is None or c.rule.effect is not Effect.ALLOW_IN_SANDBOX]
        return Rules(deny=self.deny, ask=self.ask, allow=[*self.allow, *plain], grants=self.grants,
                     sandbox_allow=[*self.sandbox_allow, *(c for c in pending if c not in plain)],
                     write=self.write, read=self.read)

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


def combine(parts: list[Part], suggestions: tuple[Suggestion, ...], *, opaque_line: bool = False) -> Verdict:
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


def _plain(token: str) -> bool:
    return bool(token) and all(c.isalnum() or c in "._-:/@+=,%" for c in token) and token.isascii()


# -- paths ----------------------------------------------------------------------------------
def resolve_paths(raw: str, where: floor.Where) -> list[Path]:
    """The lexical absolute path and, when different, where its symlinks lead."""
    value = raw
    if value.startswith("~") and (value == "~" or value.startswith("~/")):
        value = str(where.home) + value[1:]
    joined = value if os.path.isabs(value) else str(where.cwd / value)
    lexical, *physical = both_readings(joined)
    return list(dict.fromkeys((lexical, Path(os.path.realpath(lexical)), *physical)))


def both_readings(joined: str) -> list[Path]:
    """An absolute path as written (``..`` taken lexically) and as the kernel reads it: links
    first, then ``..`` from where they lead. ``out/gh/../workflows/x.yml`` is out/workflows/x.yml
    to the eye, but with out/gh a link to .github/workflows it is .github/workflows/x.yml (and
    ``link-to-ws/../home`` leaves the workspace). Both forms are judged."""
    lexical = Path(os.path.normpath(joined))
    return list(dict.fromkeys((lexical, Path(os.path.realpath(joined)))))


def path_verdict(paths: list[Path], write: bool, rules_or_family: Sequence[Compiled] | Rules, where: floor.Where,
                 *, text: str, kind: PartKind = PartKind.PATH) -> Verdict:
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

    def hit(item: Compiled, path: Path, contents: bool = True) -> bool:
        if item.matcher is None:
            return True
        return bool(item.matcher.match(path, workspaces=where.workspaces, home=where.home,
                                       contents=contents) is Match.YES)

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
        # An allow reaches no further than it reads (``PathPattern``: not into a folder ``*.log``).
        deciding = [next((c for c in pool if hit(c, p, contents=False)), None) for p in paths]
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
    kind = {Family.FETCH: PartKind.URL, Family.MCP: PartKind.MCP, Family.DB: PartKind.DB}.get(subject.family, PartKind.TOOL)

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
