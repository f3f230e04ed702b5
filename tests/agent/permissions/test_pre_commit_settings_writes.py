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
from .passed_env import pass_on

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


#: s254: ``pre-commit clean`` deleted its store (~/.cache/pre-commit and everything below it),
#: ``pre-commit gc`` the unused repositories there and rewrote its db.db (strace, pre-commit 3.0,
#: bash and dash): judged by the write rules on that folder, where pre-commit finds it.
STORE = "~/.cache/pre-commit/**"


@pytest.fixture
def _default_store(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PRE_COMMIT_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("_default_store")
@pytest.mark.parametrize("line", ["pre-commit clean", "pre-commit gc", "cd src && pre-commit gc"])
def test_emptying_the_store_is_allowed_where_the_write_rules_allow_the_store(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES + rule_text(STORE, tool="write"), line).effect is Effect.ALLOW


@pytest.mark.usefixtures("_default_store")
@pytest.mark.parametrize("rules", [
    RULES,  # (no write rule speaks of the store)
    RULES + rule_text(STORE, tool="write") + rule_text("~/.cache/**", effect="deny", tool="write"),
    RULES + rule_text(STORE, tool="write") + rule_text("~/.cache/pre-commit/keep/**", effect="deny", tool="write"),
])
@pytest.mark.parametrize("line", ["pre-commit clean", "pre-commit gc"])
def test_emptying_the_store_asks_where_the_write_rules_do_not_allow_it(setup: Setup, rules: str, line: str) -> None:
    assert verdict_under(setup, rules, line).effect is not Effect.ALLOW


@pytest.mark.usefixtures("_default_store")
def test_the_store_is_where_pre_commit_finds_it(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = RULES + rule_text(STORE, tool="write")
    pass_on(monkeypatch, "PRE_COMMIT_HOME", str(setup.workspace / "src"))
    assert verdict_under(setup, rules, "pre-commit clean").effect is not Effect.ALLOW
    pass_on(monkeypatch, "PRE_COMMIT_HOME", str(setup.workspace / "out" / "store"))
    assert verdict_under(setup, RULES, "pre-commit clean").effect is Effect.ALLOW
    monkeypatch.delenv("PRE_COMMIT_HOME")
    pass_on(monkeypatch, "XDG_CACHE_HOME", str(setup.workspace / "out"))
    assert verdict_under(setup, RULES, "pre-commit gc").effect is Effect.ALLOW
    pass_on(monkeypatch, "XDG_CACHE_HOME", str(setup.workspace / "src"))
    assert verdict_under(setup, rules, "pre-commit gc").effect is not Effect.ALLOW
