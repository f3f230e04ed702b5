"""s255: bun's own options and the commands it runs (``bun_commands``). ``bunx CMD`` and ``bun x
CMD`` run the bin CMD names from node_modules/.bin, else any program on PATH, and ``bun -e CODE``
runs the code given: under ``bun **`` or ``bunx **`` they ran /usr/bin/touch and wrote
../other/PWNED, and ``cd out && bunx tsc`` ran out/node_modules/.bin/tsc (bun 1.4.5 under bash
and dash: the s255 lines of the hostile corpus show the first ones)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import rule_text, verdict_under

RULES = rule_text("[bun|bunx|cd] **") + rule_text("@workspace/out/**", tool="write")


@pytest.mark.parametrize("line", [
    "bunx touch ../PWNED", "bun x touch ../PWNED", "bunx rm -rf src", "bun x rm -rf src", "bunx --bun rm -rf src",
    "bun --silent x rm -rf src", "bun --cwd src x rm -rf .",
    # an option not known before `x` may take a value, and `x` be the command
    "bun --new-option x rm -rf src", "bun --new-option v x rm -rf src",
    # what bunx installs and runs, chosen by the line
    "bunx -p ./out/pkg tool", "bunx --trust tool", "bunx --env-file out/e.env tool",
])
def test_the_command_bunx_runs_is_judged_on_its_own(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun -e 1", "bun --eval=1", "bun -p 1", "bun --print 1", "bun -r ./out/x.js a.ts", "bun --preload=./out/x.js a.ts",
    "bun --require ./out/x.js a.ts", "bun --import ./out/x.js a.ts", "bun -c out/bunfig.toml a.ts",
    "bun --env-file out/e.env a.ts", "bun test --preload ./out/x.js", "bun run --cpu-prof-dir ../other a.ts",
])
def test_bun_options_running_or_loading_code_ask(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun run build", "bun test", "bun install", "bun a.ts", "bun --watch a.ts", "bun --version", "bun build a.ts",
])
def test_bun_without_code_on_the_line_stays_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW


def test_a_rule_naming_the_command_bunx_runs_covers_it(setup: Setup) -> None:
    named = rule_text("[bunx tsc|bun x tsc|bunx eslint|tsc|cd] **") + rule_text("@workspace/out/**", tool="write")
    for line in ("bunx tsc", "bun x tsc", "bunx eslint src"):
        assert verdict_under(setup, named, line).effect is Effect.ALLOW
    # the bin of node_modules/.bin of a folder the agent may write
    assert verdict_under(setup, named, "cd out && bunx tsc").effect is not Effect.ALLOW
    assert verdict_under(setup, named, "bunx --cwd out tsc").effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    # s261: bun build wrote ../x/a.js, ../m.json and ../exe under `bun **` (bun 1.4.5, bash and dash)
    "bun build a.ts --outdir ../x", "bun build a.ts --outdir=../x", "bun build --outdir ../x a.ts",
    "bun build a.ts --outfile ../x/a.js", "bun build a.ts --outfile=../x/a.js", "bun build a.ts --outdir out --metafile=../m.json",
    "bun build a.ts --outdir out --metafile-md=../m.md", "bun build a.ts --compile --outfile ../exe",
    "bun build --cwd .. a.ts --outdir x", "bun build --cwd src a.ts --outdir ../../x",
    # written where only the run tells, or by a pattern, or an option not known
    "bun build --compile a.ts", "bun build a.ts --metafile", "bun build a.ts --outdir out --entry-naming=../../[name].js",
    "bun build a.ts --outdir out --root=..", "bun build --app a.ts", "bun build a.ts --new-option ../x",
    "bun build a.ts --outdir=out --outdi=../x",
    "bun build a.ts --asset ~/.ssh/id_ed25519 --compile --outfile out/app",
    # on another command a writing option may go to a script: named only
    "bun run build --outdir ../x", "bun test --coverage-dir ../x", "bun test --reporter-outfile=../r.xml",
])
def test_bun_build_writes_only_where_the_write_rules_allow(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun build a.ts --outdir out", "bun build --outdir=out a.ts", "bun build a.ts --outfile out/a.js",
    "bun build a.ts --outdir out --metafile=out/meta.json --sourcemap=linked --minify --target=bun",
    "bun build --compile a.ts --outfile out/app", "bun build --cwd src a.ts --outdir ../out/x",
])
def test_bun_build_into_a_writable_folder_stays_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW


#: s268: ``bun exec SCRIPT`` runs SCRIPT in Bun's own shell (``bun exec "touch ../PWNED"`` made
#: ../PWNED under ``bun **``: bun 1.4.5, bash and dash), a grammar the engine does not read.
@pytest.mark.parametrize("line", ['bun exec "touch ../PWNED"', "bun exec ls", "bun --silent exec 'echo hi'"])
def test_bun_exec_is_never_allowed_by_a_rule(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES + rule_text("bun exec **"), line).effect is not Effect.ALLOW


#: s268: ``bun test``, ``bun install`` and ``bun add`` read with the options their ``--help`` lists
#: (bun 1.4.5): one not listed asks, and ``--trust`` (``bun add --trust ./out/pkg`` ran its install
#: scripts), ``-g`` (``bun add -g`` wrote bun's global folder in the home folder) and ``--cache-dir``
#: are covered only by naming them (bash and dash).
@pytest.mark.parametrize("line", [
    "bun test --new-option", "bun test --new-option=../x", "bun test --timings t.json --update-timings",
    "bun install --new-option", "bun i --new-option ../x", "bun add --trust evil", "bun add -g typescript",
    "bun a --global typescript", "bun install --cache-dir ../x", "bun add -c out/bunfig.toml zod",
    "bun add --env-file out/e.env zod",
])
def test_an_option_bun_s_command_does_not_list_or_that_runs_or_writes_asks(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "bun test", "bun test -t parser --bail", "bun test --timeout 100 src", "bun test --watch --coverage",
    "bun test -u", "bun install", "bun install --frozen-lockfile", "bun i -p", "bun add -d zod", "bun add -E zod@3",
    "bun install --ignore-scripts --no-save", "bun add --dev --exact vitest",
])
def test_options_bun_s_command_lists_stay_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW
