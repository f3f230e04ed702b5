"""s281: the top a git or hg command reading its repository as a whole reads from is found as git
or hg finds it (``repository_tops``). Run in out/ (``run_command``'s cwd) with ``out/.git`` an
empty folder, a ``.git`` file naming ``../.git``, a link to ``../.git`` or with ``out/.hg`` an
empty folder, ``git log -p`` printed src/main.py's ``KEY=secret`` from the workspace's
repository (git 2.39, bash and dash) while the engine took out/ for the top and allowed it
under ``git **`` with ``@workspace/src/**`` read-denied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import rule_text

DENIED = rule_text("git **", "hg **") + rule_text("@workspace/src/**", effect="deny", tool="read")


def _repository(git_dir: Path, head: str = "ref: refs/heads/main\n") -> None:
    for folder in ("objects", "refs/heads"):
        (git_dir / folder).mkdir(parents=True, exist_ok=True)
    (git_dir / "HEAD").write_text(head, encoding="utf-8")


def _in_out(setup: Setup, line: str) -> Effect | None:
    setup.write_user_rules(DENIED)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace, cwd=setup.workspace / "out").effect


@pytest.fixture
def workspace_repository(setup: Setup) -> Setup:
    _repository(setup.workspace / ".git")
    return setup


def _empty_folder(out: Path) -> None:
    (out / ".git").mkdir()


def _git_file(out: Path) -> None:
    (out / ".git").write_text("gitdir: ../.git\n", encoding="utf-8")


def _link(out: Path) -> None:
    (out / ".git").symlink_to("../.git")


def _hg_folder(out: Path) -> None:
    (out / ".hg").mkdir()


def _head_refused(out: Path) -> None:
    _repository(out / ".git", head="not a head\n")


@pytest.mark.parametrize("plant", [_empty_folder, _git_file, _link, _hg_folder, _head_refused])
@pytest.mark.parametrize("line", ["git log -p", "git show HEAD:src/main.py", "git diff"])
def test_a_marker_git_passes_over_or_follows_does_not_hide_the_workspace(
        workspace_repository: Setup, plant: Callable[[Path], None], line: str) -> None:
    plant(workspace_repository.workspace / "out")
    assert _in_out(workspace_repository, line) is not Effect.ALLOW


def test_a_repository_of_its_own_in_out_is_read_from_there(workspace_repository: Setup) -> None:
    _repository(workspace_repository.workspace / "out" / ".git")
    assert _in_out(workspace_repository, "git log -p") is Effect.ALLOW
    assert _in_out(workspace_repository, "git log") is Effect.ALLOW


def test_hg_passes_over_a_git_marker_and_reads_a_share_s_source(setup: Setup) -> None:
    (setup.workspace / ".hg").mkdir()
    _empty_folder(setup.workspace / "out")
    assert _in_out(setup, "hg files") is not Effect.ALLOW
    (setup.workspace / "out" / ".git").rmdir()
    (setup.workspace / "out" / ".hg").mkdir()
    assert _in_out(setup, "hg files") is Effect.ALLOW  # (a repository of its own)
    (setup.workspace / "out" / ".hg" / "sharedpath").write_text(str(setup.workspace / ".hg"), encoding="utf-8")
    assert _in_out(setup, "hg files") is not Effect.ALLOW


@pytest.mark.parametrize("plant", [_empty_folder, _git_file])
def test_a_file_word_is_a_path_only_in_a_plain_repository(workspace_repository: Setup,
                                                          plant: Callable[[Path], None]) -> None:
    out = workspace_repository.workspace / "out"
    (out / "a.txt").write_text("a\n", encoding="utf-8")
    assert _in_out(workspace_repository, "git diff a.txt") is Effect.ALLOW
    plant(out)  # (git reads the workspace's settings and refs, not those the engine would find in out/.git)
    assert _in_out(workspace_repository, "git diff a.txt") is not Effect.ALLOW
