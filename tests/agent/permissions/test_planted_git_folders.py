"""s296: the worktree whose settings, hooks, index and files a git command works on is found as
git finds it (``git_index.repository_roots``). Run in out/ with ``out/.git`` an empty folder
(the agent may make one wherever it writes), ``git reset -q --hard`` put back the workspace's
src/main.py, dropping the person's edit, and ``git commit`` ran the workspace's hook from
``core.hooksPath`` (git 2.39, bash and dash): git passes over a ``.git`` that is not a
repository, while the engine took the nearest ``.git`` for the worktree."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, git_index

from .conftest import Setup
from .engine_verdicts import rule_text, writes_allowed

RULES = rule_text("git **", "cd **") + writes_allowed("@workspace/out/**")


def _repository(git_dir: Path, head: str = "ref: refs/heads/main\n") -> None:
    for folder in ("objects", "refs/heads"):
        (git_dir / folder).mkdir(parents=True, exist_ok=True)
    (git_dir / "HEAD").write_text(head, encoding="utf-8")


@pytest.fixture
def planted(setup: Setup) -> Setup:
    _repository(setup.workspace / ".git")
    (setup.workspace / "out" / ".git").mkdir(parents=True)
    return setup


def _in_out(setup: Setup, rules: str, line: str) -> Effect | None:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace, cwd=setup.workspace / "out").effect


# (out/.git is the agent's to write here, which made these ask before s296 too: they keep the
# worktree tops counting every .git on the way)
@pytest.mark.parametrize("line", ["git reset -q --hard", "git checkout -f main", "git stash"])
def test_a_command_updating_the_worktree_from_a_planted_folder_asks(planted: Setup, line: str) -> None:
    assert _in_out(planted, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git commit -q --allow-empty -m x", "git status"])
def test_the_workspace_hooks_count_from_a_planted_folder(planted: Setup, line: str) -> None:
    # (out/.git made earlier, where the rules no longer let the agent write: the folder and its
    # settings are not the agent's to change now, the workspace's hooks are)
    (planted.workspace / ".git" / "config").write_text("[core]\n\thooksPath = hooks\n", encoding="utf-8")
    rules = rule_text("git **", "cd **") + writes_allowed("@workspace/hooks/**")
    assert _in_out(planted, rules, line) is not Effect.ALLOW


def test_git_passes_over_what_is_not_a_repository(tmp_path: Path) -> None:
    _repository(tmp_path / ".git")
    inner = tmp_path / "a" / "b"
    (inner / ".git").mkdir(parents=True)
    (tmp_path / "a" / ".git").symlink_to("missing")
    # (each counts: the line may fill the folder or make the link's target before git runs)
    assert git_index.repository_roots(inner) == [inner, tmp_path / "a", tmp_path]
    assert git_index.repository_root(inner) == tmp_path
    (inner / ".git").rmdir()
    (inner / ".git").write_text("gitdir: ../../.git\n", encoding="utf-8")
    assert git_index.repository_roots(inner) == [inner]  # (git takes a .git file)
    assert git_index.repository_roots(tmp_path.parent) == []
