"""s136: a hook the person installed is a program that may read the worktree (the pre-commit
framework runs what ``.pre-commit-config.yaml`` lists, husky and lefthook run the worktree's
scripts, a plain hook may source any file there). A git command that runs a hook present in the
hooks folder asks while the agent may write the worktree or the home folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, git_hooks
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cd|git commit|git checkout|git switch|git restore|git push|git merge|git pull|git rebase|git branch|git add|git status|git diff|git log|git st|git hook|git cherry-pick|printf] **"

[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/.git/**"
"""
PRE_COMMIT_CONFIG = ("printf 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    name: x\\n    entry: sh -c \"touch PWNED\"\\n"
                     "    language: system\\n' > .pre-commit-config.yaml && git commit -qam x")




def _with_hook(workspace: Path, name: str | None) -> None:
    """A repository (``git init`` leaves only ``*.sample`` hooks) with the person's hook ``name``."""
    git_in(workspace, "init", "-q")
    if name is not None:
        hook = workspace / ".git" / "hooks" / name
        hook.write_text("#!/bin/sh\nexec pre-commit hook-impl --hook-type=x \"$@\"\n", encoding="utf-8")
        hook.chmod(0o755)


def _verdict(setup: Setup, line: str, writable: str) -> Effect | None:
    return effect_under(setup, RULES + writes_allowed(writable), line)


ELSEWHERE = "//var/tmp/echo-desk-s136-nowhere/**"


@pytest.mark.parametrize(("hook", "line"), [
    ("pre-commit", "git commit -qam x"),
    ("pre-commit", "cd src && git commit -qam x"),
    ("pre-commit", "git cherry-pick main"),  # the sequencer commits as `git commit` does
    ("post-commit", "git commit -qam x --no-verify"),  # --no-verify skips pre-commit and commit-msg only
    ("prepare-commit-msg", "git commit -n -m x"),
    ("commit-msg", "git commit -qam x --no-verify --verify"),
    ("post-checkout", "git checkout main"),
    ("post-checkout", "git checkout -- src/app.py"),
    ("post-checkout", "git switch main"),
    ("post-checkout", "git restore src/app.py"),
    ("post-checkout", "git rebase main"),
    ("pre-push", "git push origin main"),
    ("post-merge", "git merge topic"),
    ("post-merge", "git pull"),
    ("reference-transaction", "git merge topic"),
    ("post-index-change", "git status"),
    ("post-index-change", "git add src/app.py"),
    ("pre-commit", "git st"),  # an alias may run any subcommand
    ("pre-commit.sample", "git hook run pre-commit.sample"),
])
def test_a_hook_that_runs_asks_while_the_agent_may_write_the_worktree(setup: Setup, hook: str, line: str) -> None:
    _with_hook(setup.workspace, hook)
    assert _verdict(setup, line, "@workspace/**") is not Effect.ALLOW
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, line, "~/.cache/**") is not Effect.ALLOW  # pre-commit keeps the hooks it fetched there
    assert _verdict(setup, line, ELSEWHERE) is Effect.ALLOW


def test_the_agent_s_pre_commit_config_run_by_the_person_s_launcher_asks(setup: Setup) -> None:
    """Proven with pre-commit 3.0.4 and git 2.39 (``pre-commit install`` earlier, by the
    person): the commit runs ``sh -c "touch PWNED"`` (strace -f -e trace=execve)."""
    _with_hook(setup.workspace, "pre-commit")
    assert _verdict(setup, PRE_COMMIT_CONFIG, "@workspace/**") is not Effect.ALLOW


@pytest.mark.parametrize(("hook", "line"), [
    (None, "git commit -qam x"),  # only the *.sample files: they never run
    (None, "git st"),
    ("pre-commit", "git commit -qam x --no-verify"),
    ("pre-commit", "git commit -qam x -n"),
    ("pre-commit", "git status"),
    ("pre-commit", "git log --oneline"),
    ("pre-push", "git commit -qam x"),
    ("post-checkout", "git commit -qam x"),
])
def test_a_hook_that_does_not_run_leaves_the_rule_in_force(setup: Setup, hook: str | None, line: str) -> None:
    _with_hook(setup.workspace, hook)
    assert _verdict(setup, line, "@workspace/**") is Effect.ALLOW


def test_the_hooks_of_the_folder_core_hookspath_names_count(setup: Setup) -> None:
    """husky keeps its launchers in .husky/_ (hooksPath), which run the scripts of .husky/."""
    _with_hook(setup.workspace, None)
    git_in(setup.workspace, "config", "core.hooksPath", "/opt/hooks-nowhere")
    hooks = setup.workspace.parent / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\n. \"$(git rev-parse --show-toplevel)/.husky/pre-commit\"\n",
                                      encoding="utf-8")
    assert _verdict(setup, "git commit -qam x", "@workspace/**") is Effect.ALLOW  # /opt/hooks-nowhere: none
    git_in(setup.workspace, "config", "core.hooksPath", str(hooks))
    assert _verdict(setup, "git commit -qam x", "@workspace/**") is not Effect.ALLOW


def test_the_hooks_of_a_linked_worktree_are_those_of_its_main_repository(setup: Setup, tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    _with_hook(main, "pre-commit")
    git_in(main, "commit", "-q", "--no-verify", "--allow-empty", "-m", "x")
    worktree = tmp_path / "linked"
    git_in(main, "worktree", "add", "-q", str(worktree))
    # (its .git file, which names the repository, is kept from the agent)
    setup.write_user_rules(RULES + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**"\n'
                           '\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/.git"\n')
    setup.engine.refresh()
    assert setup.engine.check_command("git commit -qam x", workspace=worktree).effect is not Effect.ALLOW
    (main / ".git" / "hooks" / "pre-commit").unlink()
    assert setup.engine.check_command("git commit -qam x", workspace=worktree).effect is Effect.ALLOW


def test_which_hooks_a_command_runs() -> None:
    assert git_hooks.hooks_run(("git", "commit", "-m", "x")) >= {"pre-commit", "commit-msg", "post-commit"}
    no_verify = git_hooks.hooks_run(("git", "commit", "--no-verify", "-m", "x"))
    assert no_verify is not None and "pre-commit" not in no_verify and "post-commit" in no_verify
    assert git_hooks.hooks_run(("git", "push", "-n")) == {"pre-push", *git_hooks.ANY_COMMAND}  # -n: --dry-run
    assert git_hooks.hooks_run(("git", "log")) == set(git_hooks.ANY_COMMAND)
    assert git_hooks.hooks_run(("git", "--version")) == set()
    assert git_hooks.hooks_run(("git", "hook", "run", "x")) is None
    assert git_hooks.hooks_run(("git", "some-alias")) == git_hooks.ALL
