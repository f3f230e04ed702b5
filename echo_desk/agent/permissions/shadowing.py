"""Rules that can never decide anything: a stronger rule with the same tool always wins."""

from __future__ import annotations

from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.model import OWN_AGENT, Effect, LoadProblem, ProblemKind, Severity
from echo_desk.agent.permissions.tokens import Match, TokenPattern


def shadowed(rules: list[Compiled]) -> list[LoadProblem]:
    """Allow/ask rules that a deny (or an allow that an ask) with the same tool and a pattern
    covering it always overrides: they can never decide anything."""
    out: list[LoadProblem] = []
    active = [c for c in rules if c.rule is not None and c.rule.active]
    for c in active:
        rule = c.rule
        assert rule is not None
        if rule.effect is Effect.DENY or rule.source.path is None:
            continue
        for other in active:
            o = other.rule
            assert o is not None
            if o.tool != rule.tool or o.effect.rank <= rule.effect.rank or (o.effect.allows and rule.effect.allows):
                # An allow is consulted before an allow-in-sandbox: neither hides the other.
                continue
            if not _covers_callers(o.clients, rule.clients):
                continue  # the stronger rule speaks for fewer callers: the weaker one still decides some
            if o.pattern is None or o.pattern == rule.pattern or _covers(other, c):
                out.append(LoadProblem(
                    severity=Severity.WARNING, kind=ProblemKind.SHADOWED, path=rule.source.path,
                    line=rule.source.line,
                    message=f"{rule.describe()} is never consulted: {o.describe()} ({o.source.describe()}) "
                            "always wins over it"))
                break
    return out


def _covers_callers(stronger: tuple[str, ...], weaker: tuple[str, ...]) -> bool:
    """Whether a rule for the callers ``stronger`` speaks for every caller one for ``weaker`` does
    (empty: every caller; ``*``: any MCP client; ``@chat``: Echo Desk's own agent)."""
    if not stronger:
        return True
    if not weaker or ("*" in weaker and "*" not in stronger):
        return False
    if OWN_AGENT in weaker and OWN_AGENT not in stronger:
        return False
    return "*" in stronger or set(weaker) <= set(stronger)


def _covers(stronger: Compiled, weaker: Compiled) -> bool:
    """Shell, for the warning only: the stronger rule matches two representative commands of
    the weaker pattern (each ``**`` taken as nothing, then as an extra token)."""
    rule = weaker.rule
    if not isinstance(stronger.matcher, TokenPattern) or rule is None or rule.pattern is None:
        return False
    tokens = rule.pattern.split()
    if any(t.startswith("!") or any(c in t for c in "[]|'\"") for t in tokens):
        return False
    short = [("x" if t == "*" else t) for t in tokens if t != "**"]
    long = [("x" if t == "*" else "zz-extra" if t == "**" else t) for t in tokens]
    return all(stronger.matcher.match(argv) is Match.YES for argv in (short, long))
