"""s281: a git or hg alias is judged as what it runs. Under ``git **`` / ``hg **`` with
``@workspace/src/**`` read-denied, ``git d`` (``alias.d = diff`` in ~/.gitconfig), ``git lp``
(``log -p``), a shell alias (``!sh -c 'cat src/main.py'``), ``git -c alias.x=diff x``,
``GIT_CONFIG_*`` giving ``alias.y = show``, ``hg lp`` (``[alias] lp = log -p``), ``hg --config
alias.x=files x`` and ``[defaults] log = -p`` each printed src/main.py's ``KEY=secret`` or its
name (git 2.39, hg 6.3, bash and dash) while the engine judged the word as reading nothing. An
alias the engine cannot read counts as reading the whole repository; where no read deny lies
below the repository's top, nothing changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

VCS = rule_text("git **", "hg **", "cd **")
DENIED = VCS + rule_text("@workspace/src/**", effect="deny", tool="read")

GITCONFIG = """[alias]
\td = diff
\tlp = log -p
\tsh = !sh -c 'cat src/main.py'
\tsd = !git diff
\tshown = show HEAD:src/main.py
\tchain = lp
\tq = \"log -p\"
\tlg = log --oneline
\tst = status
\tlog = diff
"""


@pytest.fixture
def repository(setup: Setup) -> Setup:
    (setup.workspace / ".git").mkdir()
    (setup.home / ".gitconfig").write_text(GITCONFIG, encoding="utf-8")
    return setup


@pytest.mark.parametrize("line", [
    "git d", "git D", "git lp", "git sh", "git sd", "git shown", "git chain", "git q", "git st",
    "git --no-pager d", "git d HEAD", "git lp -- src", "cd out && git d",
    "git -c alias.x=diff x", "git -c 'alias.x=log -p' x", "git -c alias.x=d x",
    "git nosuchalias",  # (git runs a git-nosuchalias it finds first: not known here)
])
def test_an_alias_reading_the_repository_past_a_read_deny_asks(repository: Setup, line: str) -> None:
    assert effect_under(repository, DENIED + rule_text("git -c alias.x=* **"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git lg", "git d -- out", "git lp -- out", "git log", "git -c alias.x=lg x"])
def test_an_alias_keeping_away_from_the_deny_stays_allowed(repository: Setup, line: str) -> None:
    # (`git log` is git's own command whatever alias.log says)
    assert effect_under(repository, DENIED + rule_text("git -c alias.x=* **"), line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git d", "git lp", "git sh", "git nosuchalias"])
def test_without_a_read_deny_an_alias_stays_allowed(repository: Setup, line: str) -> None:
    assert effect_under(repository, VCS, line) is Effect.ALLOW


def test_the_repository_settings_and_their_includes_count(repository: Setup) -> None:
    (repository.home / ".gitconfig").unlink()
    (repository.workspace / ".git" / "config").write_text("[include]\n\tpath = more\n", encoding="utf-8")
    assert effect_under(repository, DENIED, "git dd") is not Effect.ALLOW  # (no alias yet: not known)
    (repository.workspace / ".git" / "more").write_text("[alias]\n\tdd = log --oneline\n", encoding="utf-8")
    assert effect_under(repository, DENIED, "git dd") is Effect.ALLOW
    (repository.workspace / ".git" / "more").write_text("[alias]\n\tdd = diff\n", encoding="utf-8")
    assert effect_under(repository, DENIED, "git dd") is not Effect.ALLOW


def test_settings_not_read_count_as_any_alias(repository: Setup) -> None:
    (repository.home / ".gitconfig").write_text("[alias]\n\tlg = log --oneline\n\tbad\n = \"x\n", encoding="utf-8")
    assert effect_under(repository, DENIED, "git lg") is not Effect.ALLOW


def test_an_alias_from_the_environment_the_line_gives(repository: Setup) -> None:
    rules = DENIED + rule_text("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0=* git **")
    line = "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0={} git y"
    assert effect_under(repository, rules, line.format("show") + " HEAD:src/main.py") is not Effect.ALLOW
    assert effect_under(repository, rules, line.format("lg")) is Effect.ALLOW


def test_a_git_program_on_the_path_runs_before_the_alias(repository: Setup, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert effect_under(repository, DENIED, "git lg") is Effect.ALLOW
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "git-lg").write_text("#!/bin/sh\ncat src/main.py\n", encoding="utf-8")
    (programs / "git-lg").chmod(0o755)
    monkeypatch.setenv("PATH", f"{programs}{os.pathsep}{os.environ['PATH']}")
    assert effect_under(repository, DENIED, "git lg") is not Effect.ALLOW


# -- hg ------------------------------------------------------------------------------------------
HGRC = """[alias]
lp = log -p
lg = log -l 3
f = files
shc = !cat src/main.py
one = cat $1
"""


@pytest.fixture
def hg_repository(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    (setup.home / ".hgrc").write_text(HGRC, encoding="utf-8")
    return setup


@pytest.mark.parametrize("line", ["hg lp", "hg f", "hg shc", "hg one src/main.py", "hg --config alias.x=files x",
                                  "hg --config 'alias.x=cat src/main.py' x", "cd out && hg lp"])
def test_an_hg_alias_reading_the_repository_past_a_read_deny_asks(hg_repository: Setup, line: str) -> None:
    assert effect_under(hg_repository, DENIED + rule_text("hg --config alias.x=* **"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg lg", "hg log", "hg f out", "hg --config alias.x=log x"])
def test_an_hg_alias_keeping_away_from_the_deny_stays_allowed(hg_repository: Setup, line: str) -> None:
    assert effect_under(hg_repository, DENIED + rule_text("hg --config alias.x=* **"), line) is Effect.ALLOW


def test_hg_defaults_of_the_command_count(hg_repository: Setup) -> None:
    (hg_repository.workspace / ".hg" / "hgrc").write_text("[defaults]\nlog = -p\n", encoding="utf-8")
    for line in ("hg log", "hg history", "hg lg"):
        assert effect_under(hg_repository, DENIED, line) is not Effect.ALLOW, line


def test_a_git_marker_git_passes_over_hides_the_settings_it_reads(repository: Setup) -> None:
    # (git in out/ reads the workspace's .git/config, not the out/.git the engine would find)
    for folder in ("objects", "refs"):
        (repository.workspace / ".git" / folder).mkdir()
    (repository.workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repository.workspace / ".git" / "config").write_text("[alias]\n\tlg = log -p\n", encoding="utf-8")
    (repository.workspace / "out" / ".git").mkdir()
    repository.write_user_rules(DENIED)
    repository.engine.refresh()
    effect = repository.engine.check_command("git lg", workspace=repository.workspace, cwd=repository.workspace / "out")
    assert effect.effect is not Effect.ALLOW
