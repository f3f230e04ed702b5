"""s240: pre-commit's ``autoupdate`` (the newest ``rev`` of each hook repository, fetched) and
``migrate-config`` rewrite its settings file: the one ``-c``/``--config`` names, from the folder
it runs in, else the repository top's (pre-commit changes folder there first: ``cd src &&
pre-commit migrate-config`` rewrote the top's). A rule naming pre-commit trusts the hooks it
runs, not that write (pre-commit 3.0, bash and dash: the s240 lines of the hostile corpus, rule
set hook-repos). The write rules judge the file ``-c`` names; the top's asks."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import rule_text, verdict_under

RULES = rule_text("[pre-commit|cd] **") + rule_text("@workspace/out/**", tool="write")


@pytest.mark.parametrize("line", [
    "pre-commit autoupdate",
    "pre-commit migrate-config",
    "cd src && pre-commit autoupdate",
    "pre-commit autoupdate --freeze -j 4",
    "pre-commit autoupdate --repo https://example.invalid/hooks",
    "pre-commit autoupdate -c .pre-commit-config.yaml",
    "pre-commit migrate-config -c src/p.yaml",
    "pre-commit migrate-config -csrc/p.yaml",
    "pre-commit migrate-config --config=src/p.yaml",
    "pre-commit migrate-config --conf src/p.yaml",
    "pre-commit autoupdate -j 4 -c src/p.yaml",
    "pre-commit autoupdate -c out/p.yaml -c src/p.yaml",
    "pre-commit autoupdate -c $FILE",
])
def test_a_rewrite_of_the_settings_file_asks_under_a_rule_naming_pre_commit(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "pre-commit run -a", "pre-commit run --all-files", "pre-commit sample-config", "pre-commit --version",
    "pre-commit validate-config", "pre-commit help autoupdate",
])
def test_the_other_everyday_pre_commit_lines_stay_allowed(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW
