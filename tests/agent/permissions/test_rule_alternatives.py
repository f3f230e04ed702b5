"""What a rule names is what the alternative that matches names (s143). An option ``**`` never
covers (``node -e``: it runs code) is covered only by a rule that names it; a word one
alternative names, or a word the rule forbids, did count as named for the whole rule:
``node ** !-e`` allowed ``node --eval 'require("fs").appendFileSync(…/.bashrc, …)'`` (the same
option by its other spelling; it ran, changing ``~/.bashrc``), and ``[node|perl -pi -e] **``
allowed ``node -e``.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

EVAL = "node --eval 'require(\"fs\").appendFileSync(process.env.HOME + \"/.bashrc\", \"touch PWNED\")'"


@pytest.mark.parametrize(("rule", "line"), [
    ("node ** !-e", EVAL),
    ("node ** !--eval", "node -e 1"),
    ("[node|perl -pi -e] **", "node -e 1"),
    ("[node|perl -pi -e] **", EVAL),
    ("[node|sed -i] **", "node -i -e 1"),
])
def test_an_option_is_named_only_by_the_alternative_that_matches(setup: Setup, rule: str, line: str) -> None:
    setup.write_user_rules(_rules(rule) + _rules("@workspace/*.txt", tool="write"))
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize(("rule", "line"), [
    ("[node -e|perl -pi -e] **", "node -e 1"),
    ("[node|perl -pi -e] **", "perl -pi -e s/a/b/ a.txt"),
    ("[node|perl -pi -e] **", "node t.js"),
    ("node ** !-e", "node t.js"),
    ("node -e **", "node -e 1"),
])
def test_the_alternative_that_names_an_option_still_covers_it(setup: Setup, rule: str, line: str) -> None:
    setup.write_user_rules(_rules(rule) + _rules("@workspace/*.txt", tool="write"))
    (setup.workspace / "a.txt").write_text("a\n", encoding="utf-8")
    assert _effect(setup, line) is Effect.ALLOW
