"""s240: what just's positional words do besides naming recipes. Leading ``NAME=VALUE`` words
(after ``--`` too) and ``--set NAME VALUE`` set the justfile's variables, which recipes paste into
their shell lines: ``just name='$(touch P)' x`` ran the command under a rule naming just. The
first operand holding a ``/`` (or ``.``, ``..``) names the folder just finds its justfile from:
``just ../other/proj/x`` ran another project's recipe there, as ``-d`` does (just 1.59, bash and
dash: the s240 lines of the hostile corpus). An override is covered only by a rule naming it (by
its variable); a search folder is judged as ``-d``'s: outside the workspace it asks."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque, Verdict

from .conftest import Setup
from .engine_verdicts import rule_text, verdict_under

ANY_JUST = rule_text("just **") + rule_text("@workspace/out/**", tool="write")


def _decide(setup: Setup, line: str, rules: str = ANY_JUST) -> Verdict:
    return verdict_under(setup, rules, line.replace("{outside}", str(setup.workspace.parent / "other")))


@pytest.mark.parametrize("line", [
    "just name='$(touch ../P)' test",
    "just 'name=$(touch ../P)' test",
    "just --set name '$(touch ../P)' test",
    "just --set version 1.2 release",
    "just version=1.2 release",
    "just version=1.2",  # (the first recipe)
    "just -- name=x test",  # (after -- still an override)
    "just -n name=x test",
    "just --color never --set name x test",
    "just a/b=1 test",  # (not a variable: just 1.59 refuses it, read as one all the same)
    "just name=$V test",
    "just $V test",  # (it may be an override)
    "just --set $V 1 test",
])
def test_a_variable_the_line_sets_asks_under_a_rule_naming_just(setup: Setup, line: str) -> None:
    decision = _decide(setup, line)
    assert decision.effect is not Effect.ALLOW
    assert decision.parts[0].opaque is not Opaque.CD_OUTSIDE


@pytest.mark.parametrize(("rule", "line"), [
    ("just version=* release", "just version=1.2 release"),
    ("just --set version * release", "just --set version 1.2 release"),
    ("just --set version * **", "just --set version 1.2 release"),
    ("just [version=*|name=*] **", "just version=1.2 release"),
])
def test_a_rule_naming_the_variable_covers_it(setup: Setup, rule: str, line: str) -> None:
    assert _decide(setup, line, rule_text(rule)).effect is Effect.ALLOW


@pytest.mark.parametrize(("rule", "line"), [
    ("just version=* **", "just version=1.2 name=x release"),
    ("just --set version * **", "just --set version 1.2 --set name x release"),
    ("just --set ** release", "just --set name x release"),  # (the option, not the variable)
    ("just *=* release", "just name=x release"),  # (a key written as a wildcard names none)
    ("just --set version * **", "just --set version 1 --set=name x release"),
])
def test_a_rule_naming_one_variable_does_not_cover_another(setup: Setup, rule: str, line: str) -> None:
    assert _decide(setup, line, rule_text(rule)).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "just ../other/proj/x",
    "just ../other/proj/ x",
    "just ..",
    "just {outside}/x",
    "just -n ../other/x",
    "just -- ../other/x",
    "just ~/proj/x",
    "just -l ../other/",
])
def test_a_search_folder_outside_the_workspace_asks_saying_so(setup: Setup, line: str) -> None:
    decision = _decide(setup, line)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize("line", [
    "just", "just test", "just -l", "just src/x", "just ./x", "just .", "just src/ x", "just test ../x",
    "just test name=x",  # (after the recipe: its argument)
    "just test a=b --flag", "just -n build",
])
def test_everyday_just_lines_stay_allowed(setup: Setup, line: str) -> None:
    assert _decide(setup, line, ANY_JUST + rule_text("cd **")).effect is Effect.ALLOW
