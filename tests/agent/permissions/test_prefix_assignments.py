"""s269: a ``NAME=value`` written before a command is the environment bash gives that program, as
``env NAME=value`` gives it, and is judged so. A variable on the inert list, or one the program
reads as data only (``data_variables``: ``NODE_ENV`` for npm and node, proven with strace), is
covered by the program's rule (``NODE_ENV=test npm test`` under ``npm test **``: it asked under
every rule before). Any other needs a rule naming the assignment (``NAME=* npm test **``, or the
same rule spelled with ``env``); before a builtin, alone on the line, or with a value of other
characters than the inert ones, it stays opaque and asks whatever the rules say."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, verdict_under, writes_allowed

PROGRAMS = rule_text("[npm test|npm run test|node|poetry install|ls|git status|cd|read] **")
#: The agent may write somewhere: a variable of a program judged by its settings files that the
#: engine does not read for it counts as naming any file then (``_loose_variables``).
WRITING = PROGRAMS + writes_allowed("@workspace/out/**")


@pytest.mark.parametrize("line", [
    "NODE_ENV=test npm test",
    "NODE_ENV=production npm test",
    "NODE_ENV=test npm run test",
    "NODE_ENV=test CI=1 npm test",
    "NODE_ENV=test node --version",
    "env NODE_ENV=test npm test",  # (a rule for env is not needed by the data variable: below)
])
def test_a_variable_the_program_reads_as_data_is_covered_by_its_rule(setup: Setup, line: str) -> None:
    rules = WRITING + rule_text("env **") if line.startswith("env ") else WRITING
    assert effect_under(setup, rules, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "POETRY_VIRTUALENVS_IN_PROJECT=true poetry install",  # (where poetry creates its environment)
    "NODE_OPTIONS=--inspect npm test",  # (node's options)
    "NODE_ENV=test NODE_OPTIONS=--inspect npm test",
    "npm_config_script_shell=bash npm test",
    "NODE_ENV=test npx tsc",  # (data for npm and node only)
    "NODE_ENV=test /usr/bin/npm test",  # (the program as written: a path is not npm)
    "LD_PRELOAD=x.so ls",
    "BASH_ENV=x.log ls",
    "GIT_CONFIG_GLOBAL=x.log git status",
    "FOO=1 ls",
])
def test_any_other_variable_needs_a_rule_naming_it(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, PROGRAMS, line)
    assert decision.effect is not Effect.ALLOW
    assert all(part.opaque is not Opaque.UNSAFE_ASSIGNMENT for part in decision.parts)  # (nameable)


@pytest.mark.parametrize(("pattern", "line"), [
    ("POETRY_VIRTUALENVS_IN_PROJECT=true poetry install **", "POETRY_VIRTUALENVS_IN_PROJECT=true poetry install"),
    ("env POETRY_VIRTUALENVS_IN_PROJECT=* poetry install **", "POETRY_VIRTUALENVS_IN_PROJECT=true poetry install"),
    ("NODE_OPTIONS=* npm test **", "NODE_OPTIONS=--inspect npm test"),
    ("NODE_OPTIONS=* npm test **", "env NODE_OPTIONS=--inspect npm test"),
    ("FOO=* ls **", "FOO=1 ls -l"),
    ("FOO=* BAR=* ls **", "FOO=1 BAR=2 ls"),
])
def test_a_rule_naming_the_assignment_allows_it(setup: Setup, pattern: str, line: str) -> None:
    assert effect_under(setup, PROGRAMS + rule_text(pattern), line) is Effect.ALLOW


@pytest.mark.parametrize(("pattern", "line"), [
    ("FOO=* ls **", "FOO=1 BAR=2 ls"),  # (BAR is not named)
    ("FOO=1 ls **", "FOO=2 ls"),
    ("FOO=* ls **", "FOO=1 cat a.txt"),
    ("FOO=* ls **", "FOO=out/x ls"),  # (a value of other characters: opaque)
    ("FOO=* ls **", "FOO=$HOME ls"),
    ("FOO=* ls **", "FOO=~/x ls"),
    ("FOO=* cd **", "FOO=1 cd src"),  # (a builtin: the prefix is not its environment)
    ("IFS=* read **", "IFS=x read a"),
    ("FOO=* **", "FOO=1"),
])
def test_what_a_rule_naming_an_assignment_does_not_allow(setup: Setup, pattern: str, line: str) -> None:
    assert effect_under(setup, PROGRAMS + rule_text(pattern), line) is not Effect.ALLOW


def test_a_named_variable_of_a_program_judged_by_its_settings_still_asks_while_the_agent_may_write(
        setup: Setup) -> None:
    # poetry reads settings files; a variable the engine does not read for it may name one the
    # agent wrote, as for `env NAME=value poetry …` (line_environment): naming it trusts the
    # variable, not every file it may name.
    rules = WRITING + rule_text("POETRY_VIRTUALENVS_IN_PROJECT=* poetry install **")
    assert effect_under(setup, rules, "POETRY_VIRTUALENVS_IN_PROJECT=true poetry install") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["X=1 npm publish", "NODE_ENV=production npm publish", "FOO=1 BAR=2 npm publish"])
def test_deny_rules_see_the_command_behind_its_prefixes(setup: Setup, line: str) -> None:
    rules = PROGRAMS + rule_text("npm publish **", effect="deny")
    assert effect_under(setup, rules, line) is Effect.DENY


def test_the_rule_offered_names_the_assignment(setup: Setup) -> None:
    decision = verdict_under(setup, PROGRAMS, "FOO=1 ls -l && RAILS_ENV=test npm test")
    assert [s.pattern for s in decision.suggestions] == ["FOO=1 ls **", "RAILS_ENV=test npm test **"]
    for suggestion in decision.suggestions:
        assert suggestion.pattern is not None
        assert effect_under(setup, PROGRAMS + rule_text(suggestion.pattern), suggestion.label) is Effect.ALLOW


def test_no_rule_offered_names_a_variable_of_options(setup: Setup) -> None:
    """(s342) node takes options from NODE_OPTIONS (``--inspect`` opens a debugger port, ``--require``
    loads a file): a rule naming it is the person's to write, not one click in the dialog."""
    decision = verdict_under(setup, PROGRAMS, "FOO=1 ls -l && NODE_OPTIONS=--inspect npm test")
    assert [s.pattern for s in decision.suggestions] == ["FOO=1 ls **"]
