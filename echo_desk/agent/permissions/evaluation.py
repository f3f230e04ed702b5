"""One call's verdict from the index of active rules and the grants in force: the shell's
line judged part by part, each path of a files call, or one part for the other families; and,
when nothing spoke, whether an untrusted workspace's rules would have allowed it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from echo_desk.agent.permissions import decide, floor
from echo_desk.agent.permissions.compiled import Compiled, NamedGrammar, compile_pattern, family_of
from echo_desk.agent.permissions.decide import Rules
from echo_desk.agent.permissions.layers import RuleIndex
from echo_desk.agent.permissions.model import Effect, Family, Grant, Part, Suggestion, Verdict
from echo_desk.agent.permissions.shell_verdict import shell_verdict
from echo_desk.agent.permissions.subjects import PathUse, Subject
from echo_desk.agent.permissions.tokens import PatternError

#: A grant, compiled, beside the ``tool`` value it names.
NamedGrant = tuple[str, Compiled]


def verdict_for(subject: Subject, index: RuleIndex, grants: list[Grant], where: floor.Where,
                named: NamedGrammar | None) -> Verdict:
    """The rules' and grants' verdict for ``subject`` (``effect None``: nothing spoke)."""
    names = subject.names
    compiled_grants = [(g.tool, c) for g in grants if (c := compile_grant(g, named)) is not None]
    rules = index.rules_for(names, subject.client).granting(
        [c for tool, c in compiled_grants if tool in names],
        tuple(c for tool, c in compiled_grants if tool == "write"))
    if subject.family is Family.SHELL:
        verdict = shell_verdict(subject, rules, where)
    elif subject.family in (Family.READ, Family.WRITE):
        parts: list[Part] = []
        suggestions: list[Suggestion] = []
        for use, path_rules in path_rules_of(subject, index, compiled_grants):
            v = decide.path_verdict(decide.resolve_paths(use.raw, where), use.family is Family.WRITE, path_rules,
                                    where, text=use.raw)
            parts.extend(v.parts)
            suggestions.extend(path_suggestion(use, where))
        verdict = decide.combine(parts, tuple(suggestions))
    else:
        verdict = decide.simple_verdict(subject, rules)
    waiting = index.waiting_for_trust(names, subject.client)
    if verdict.effect is None and waiting:
        return replace(verdict, untrusted_allow=would_allow(subject, rules, waiting, where, index, compiled_grants))
    return verdict


def path_rules_of(subject: Subject, index: RuleIndex, grants: list[NamedGrant]) -> list[tuple[PathUse, Rules]]:
    """Each path of a files call with the rules that judge it: those naming the tool and
    those of the path's own family (``read`` for the source of a copy, ``write`` for its
    destination), with the grants of the same names. The rules are the calling client's, as for
    every other family: a rule naming a client speaks for that client's paths too."""
    out: list[tuple[PathUse, Rules]] = []
    for use in subject.paths or (PathUse(raw=".", family=subject.family),):
        names = frozenset({subject.tool, use.family.value})
        out.append((use, index.rules_for(names, subject.client).granting([c for tool, c in grants if tool in names])))
    return out


def would_allow(subject: Subject, rules: Rules, waiting: list[Compiled], where: floor.Where, index: RuleIndex,
                grants: list[NamedGrant]) -> bool:
    """Whether the untrusted workspace's allow rules would allow this call once trusted."""
    if subject.family is Family.SHELL:
        said = shell_verdict(subject, rules.trying(waiting), where, suggest=False).effect
        return said is not None and said.allows
    if subject.family in (Family.READ, Family.WRITE):
        return all(
            decide.path_verdict(decide.resolve_paths(use.raw, where), use.family is Family.WRITE,
                                path_rules.trying([c for c in waiting if c.tool in (subject.tool, use.family.value)]),
                                where, text=use.raw).effect is Effect.ALLOW
            for use, path_rules in path_rules_of(subject, index, grants))
    return decide.simple_verdict(subject, rules.trying(waiting)).effect is Effect.ALLOW


def path_suggestion(use: PathUse, where: floor.Where) -> list[Suggestion]:
    """The narrow rule to offer for one path: under the workspace, the home folder, or as is."""
    family, raw = use.family.value, use.raw
    lexical = decide.resolve_paths(raw, where)[0]
    for ws in where.workspaces:
        if lexical == ws:
            return [Suggestion(tool=family, pattern="@workspace/**", label=raw)]
        if ws in lexical.parents:
            anchor, rel = "@workspace/", lexical.relative_to(ws).as_posix()
            break
    else:
        home = where.home
        if lexical == home or home in lexical.parents:
            anchor, rel = "~/", lexical.relative_to(home).as_posix()
        else:
            anchor, rel = "/", lexical.as_posix()
    if not _reads_literally(rel):
        return []  # no rule rather than one wider than the path the person read
    return [Suggestion(tool=family, pattern=anchor + rel, label=raw)]


def _reads_literally(path: str) -> bool:
    """Whether a path pattern made of ``path`` names only that path: no glob character (a file
    named ``**`` or ``*.txt``) and no part starting or ending with white space (gitignore drops
    trailing spaces: ``notes.txt `` would cover ``notes.txt``)."""
    return not any(c in path for c in "*?[]!\\") and all(
        part == part.strip() for part in path.split("/") if part)


def compile_grant(grant: Grant, named: NamedGrammar | None) -> Compiled | None:
    try:
        family = family_of(grant.tool, named)
        matcher = compile_pattern(family, grant.pattern)
    except (ValueError, PatternError):
        return None  # a grant that no longer compiles grants nothing
    return Compiled(tool=grant.tool, family=family, matcher=matcher, grant=grant)


def where_for(workspaces: tuple[Path, ...], cwd: Path | None, home: Path, protected: tuple[Path, ...]) -> floor.Where:
    """Where a call runs, for the floor rules and the path rules."""
    return floor.Where(cwd=Path(cwd) if cwd else (workspaces[0] if workspaces else Path.cwd()),
                       home=home, workspaces=workspaces, protected=protected)
