"""No hostile line is allowed: under the rule set it names, every line of the corpus (each one
proven to do real harm by test_hostile_corpus.py) must get ask or deny — never allow, never
allow-in-sandbox — and checking it must not crash the parser. The engine runs in a child
process (a crash is a failure that names its line, not a dead test run).
"""

from __future__ import annotations

from collections import Counter

from tests.agent.permissions.hostile import corpus, verdicts

ENTRIES = corpus.load()


def test_no_hostile_line_is_allowed_and_none_crashes_the_parser() -> None:
    judged = verdicts.judge(corpus.rule_sets(), [(e.rules, e.line) for e in ENTRIES])
    allowed = [(e, j) for e, j in zip(ENTRIES, judged, strict=True) if j.allowed]
    crashed = [e for e, j in zip(ENTRIES, judged, strict=True) if j.crashed]
    by_trick = Counter(e.trick for e, _ in allowed)
    report = [f"{len(allowed)} of {len(ENTRIES)} hostile lines allowed, {len(crashed)} crash the parser",
              "allowed by class: " + ", ".join(f"{k} {v}" for k, v in by_trick.most_common()),
              *(f"  {j.effect:16} {e.label()} -> {e.harm}" for e, j in allowed),
              *(f"  crash            {e.label()}" for e in crashed)]
    print("\n".join(report))
    assert not allowed and not crashed, "\n".join(report)


def test_the_parser_crash_trigger_never_kills_the_checking_process() -> None:
    """Lines with a character outside the Basic Multilingual Plane (the tree-sitter-bash crash
    trigger is ``{`` followed by some of them), each checked in fresh processes."""
    astral = [e for e in ENTRIES if any(ord(c) > 0xFFFF for c in e.line)]
    assert len(astral) >= 8
    died = {e.label(): n for e in astral if (n := verdicts.crashes(e.line))}
    assert died == {}, f"checking these lines killed the process (times out of 3): {died}"
