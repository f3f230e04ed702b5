"""s276: bun's other commands with the options their ``--help`` lists (``bun_command_options``), where
bun fmt, bun init and bun pm pack write, and the words a scaffolder is given (``npm create demo
../made``, ``bun create demo ../made`` made a project there under ``npm **`` and ``bun **``; bun fmt
rewrote ``~/.ssh/keys.json``: npm 11, bun 1.4.5, bash and dash; the s276 lines of the hostile
corpus show them)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import rule_text, verdict_under

RULES = rule_text("[bun|npm|pnpm|yarn|cd] **") + rule_text("@workspace/out/**", tool="write")


@pytest.mark.parametrize("line", [
    "bun remove lodash --new-option", "bun update --new-option", "bun outdated --new-option", "bun why react --x",
    "bun fmt --new-option out/a.js", "bun init --new-option out/app", "bun pm ls --new-option", "bun audit --x",
    # running scripts, loading code, writing outside the project: only by naming them
    "bun ci --trust", "bun remove -g lodash", "bun update --cache-dir ../c", "bun patch --commit x --patches-dir ../p",
    "bun fmt --config out/c.js out/a.js", "bun fmt --plugin ./out/p.js out/a.js", "bun fmt --staged", "bun fmt --init",
    "bun fmt --changed out/a.js", "bun audit -L", "bun remove --env-file out/e lodash",
])
def test_an_option_off_the_command_s_list_or_running_or_writing_asks(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun upgrade", "bun completions", "bun link", "bun repl", "bun getcompletes", "bun pm trust --all",
    "bun pm version patch", "bun pm pkg set scripts.test=x", "bun pm cache rm", "bun pm --new-option ls",
])
def test_a_command_on_no_list_asks(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


def test_a_rule_naming_a_command_on_no_list_covers_it(setup: Setup) -> None:
    named = rule_text("[bun upgrade|bun pm trust] **")
    assert verdict_under(setup, named, "bun upgrade").effect is Effect.ALLOW
    assert verdict_under(setup, named, "bun pm trust --all").effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun fmt ../x.js", "bun fmt src", "bun fmt ~/.ssh/keys.json", "bun fmt 'out/**/*.js' ../x.js", "bun fmt 'out/*.js'",
    "bun fmt", "bun --cwd out fmt ../../x.js", "bun init", "bun init -y ../made", "bun pm pack",
    "bun pm pack --destination ../x", "bun pm pack --filename ../x.tgz",
])
def test_bun_fmt_init_and_pack_write_only_where_the_write_rules_allow(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun fmt -c ../x.js", "bun init -y out/app",
    "bun pm pack --destination out/x", "bun pm pack --dry-run", "bun outdated", "bun remove lodash", "bun update",
    "bun pm", "bun pm ls --all", "bun pm bin -g", "bun why react --depth 2", "bun info react --json", "bun audit",
    "bun pm hash", "bun list", "bun check", "bun dedupe --check", "bun prune --dry-run", "bun publish --dry-run",
])
def test_what_bun_s_lists_hold_stays_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "npm create demo ../made", "npm init demo ../made", "npm innit demo ../made", "npm create demo ~/made",
    "npm create demo@latest ../made -- --template vanilla", "npm init -y demo ../made", "pnpm create demo ../made",
    "yarn create demo ../made", "bun create demo ../made", "bun c demo ../made", "bun create demo --dir=../made",
    "bun create ./out/App.tsx",
])
def test_a_scaffolder_s_words_are_places_it_may_write(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["npm init -y", "npm init", "npm create demo", "bun create demo"])
def test_a_scaffolder_given_no_place_writes_where_it_runs(setup: Setup, line: str) -> None:
    # (s287: create-demo made demo-app/ in the workspace, npm init -y rewrote its package.json)
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["bun fmt out/a.js", "bun fmt --check", "bun fmt --list-files"])
def test_bun_fmt_asks_where_the_agent_may_write_prettier_settings_it_runs(setup: Setup, line: str) -> None:
    # (s287: out/.prettierrc.js, which the agent may write, runs; see test_javascript_lookups)
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW
    only_text = RULES.replace("@workspace/out/**", "@workspace/out/*.txt")
    assert verdict_under(setup, only_text, "bun fmt --check").effect is Effect.ALLOW
