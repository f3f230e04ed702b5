"""s314: git and hg commands that start an editor no word of the line names (``editor_starts``).

``git commit`` without a message (``--amend``, ``--fixup=amend:``, ``git tag -a``, ``git notes
add``…) and ``hg commit`` without ``-m`` run the editor git or hg finds: a variable, a setting,
else ``editor``/``vi`` (Debian's hg: ``sensible-editor``, which runs ``editor``) looked up on the
PATH. With ``~/.local/bin`` first on the PATH, a planted ``~/.local/bin/editor`` ran under a plain
``git commit`` and ``hg commit`` (git 2.39, hg 6.3, bash and dash, input not a terminal; git only
where ``TERM`` is set and not ``dumb``, hg whatever ``TERM``). A rule naming git or hg does not
name that program: the editor is judged as a command the line runs, as if the line named it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed
from .test_editor_settings import install_nano

VCS = rule_text("git **", "hg **", "cd **") + writes_allowed("~/.local/bin/**")

#: Lines the rules allowed before s314 that start an editor.
STARTS_AN_EDITOR = [
    "git commit",
    "git commit -a",
    "git commit --amend",
    "git commit --allow-empty",
    "git commit --fixup=amend:HEAD",
    "git commit --squash HEAD",
    "git -C out commit",
    "git notes add",
    "git notes append HEAD",
    "git notes edit",
    "hg commit",
    "hg ci",
    "hg comm -A",
    "hg --cwd out commit",
    "hg commit -Am x",  # (a group of short options is not read: it may hold no message)
    "hg commit --edit -m x",
    "hg commit -m x --edit",
]
#: Lines that start an editor and asked before too (an option a rule must name): they still ask.
STILL_ASK = ["git commit -e -m x", "git commit -c HEAD", "git tag -a v1", "git tag -a -e -m x v1", "git rebase -i HEAD~1",
             "git merge --edit x", "git add -e", "git config -e", "git branch --edit-description"]
#: Lines that give the message: no editor starts, the rule covers them as before.
MESSAGE_GIVEN = [
    "git commit -m x",
    "git commit -am x",
    "git commit -mfix-cache",
    "git commit --message=x",
    "git commit -F msg.txt",
    "git commit --amend --no-edit",
    "git commit --amend -C HEAD",
    "git commit --fixup=HEAD",
    "git commit --dry-run",
    "git tag -l",
    "git notes",
    "git notes list",
    "git status",
    "hg commit -m x",
    "hg ci -A -m x",
    "hg commit --message=x",
    "hg commit -l msg.txt",
    "hg status",
]


@pytest.fixture(autouse=True)
def _no_editor_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EDITOR", "VISUAL", "GIT_EDITOR", "HGEDITOR"):
        monkeypatch.delenv(name, raising=False)


def _repository(setup: Setup) -> None:
    (setup.workspace / ".git").mkdir()
    (setup.workspace / ".hg").mkdir()


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("line", ["git commit --allow-empty", "git notes add", "hg commit"])
def test_a_planted_editor_on_the_path_runs(tmp_path: Path, shell: str, line: str) -> None:
    program = line.split()[0]
    if shutil.which(program) is None or shutil.which(shell) is None:
        pytest.skip(f"{program} or {shell} is not installed")
    home, work = tmp_path / "home", tmp_path / "ws"
    (home / ".local" / "bin").mkdir(parents=True)
    work.mkdir()
    for name in ("editor", "vi", "sensible-editor"):
        planted = home / ".local" / "bin" / name
        planted.write_text(f"#!/bin/sh\n/usr/bin/touch {home}/PWNED\n", encoding="utf-8")
        planted.chmod(0o755)
    (home / ".hgrc").write_text("[ui]\nusername = t\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": f"{home}/.local/bin:/usr/bin:/bin", "LANG": "C", "TERM": "xterm",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
           "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    for setup_line in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "a"], ["hg", "init", "-q"]):
        if shutil.which(setup_line[0]) is not None:
            subprocess.run(setup_line, cwd=work, env=env, check=True, capture_output=True)
    (work / "f").write_text("x\n", encoding="utf-8")
    if program == "hg":
        subprocess.run(["hg", "add", "-q", "f"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([shell, "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert (home / "PWNED").exists()


@pytest.mark.parametrize("line", STARTS_AN_EDITOR)
def test_the_editor_a_command_starts_is_not_covered_by_the_vcs_rule(setup: Setup, line: str) -> None:
    _repository(setup)
    assert effect_under(setup, VCS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", STILL_ASK)
def test_options_that_start_an_editor_still_ask(setup: Setup, line: str) -> None:
    _repository(setup)
    assert effect_under(setup, VCS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", MESSAGE_GIVEN)
def test_a_message_on_the_line_keeps_the_rule(setup: Setup, line: str) -> None:
    _repository(setup)
    assert effect_under(setup, VCS, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git commit", "hg commit", "git notes add"])
def test_an_editor_the_rules_allow_by_name_is_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path_factory: pytest.TempPathFactory, line: str) -> None:
    _repository(setup)
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.setenv("TERM", "xterm")
    install_nano(tmp_path_factory, monkeypatch)  # (Debian's hg runs sensible-editor: it runs nano when there is one)
    assert effect_under(setup, VCS + rule_text("nano **"), line) is Effect.ALLOW
    assert effect_under(setup, VCS, line) is not Effect.ALLOW


def test_vim_as_the_editor_is_given_what_the_line_feeds(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    # (git gives the editor its input: vim reads keys, `:!cmd` among them, from a pipe)
    _repository(setup)
    monkeypatch.setenv("EDITOR", "vim")
    rules = VCS + rule_text("[vim|printf] **")
    assert effect_under(setup, rules, "printf ':!touch PWNED\\n:wq\\n' | git commit") is not Effect.ALLOW


def test_the_default_editors_are_each_judged(setup: Setup) -> None:
    # With no variable set, `editor` and `vi` may run (which one: the settings and the system).
    _repository(setup)
    assert effect_under(setup, VCS + rule_text("editor **"), "git commit") is not Effect.ALLOW
