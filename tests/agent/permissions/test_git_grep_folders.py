"""s302: git grep run in a folder below the top (``cd out && git grep KEY``, ``git -C out grep
KEY``) searches only below that folder: beside a read deny on ``@workspace/src/**`` it printed
out/'s lines and opened nothing below src/, with ``--untracked``, ``--no-index`` and ``--cached``
too (strace, git 2.39, bash and dash). So it is judged from that folder alone, while git finds
there the repository it finds where the line runs: a ``.git`` on the way up (``gitdir: ../.git``
in out/.git) makes out/ the top of the workspace's repository, and ``--cached`` printed
src/main.py's committed lines (hostile corpus, issue s302)."""

from __future__ import annotations

import os
import subprocess

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

GREP = rule_text("[cd|git grep] **")
DENIED = GREP + rule_text("@workspace/src/**", effect="deny", tool="read")


def _repository(setup: Setup) -> None:
    """The workspace as a repository whose index names src/main.py and out/b.txt."""
    (setup.workspace / "src" / "main.py").write_text("KEY=secret\n", encoding="utf-8")
    (setup.workspace / "out" / "b.txt").write_text("KEY=out\n", encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(setup.home), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "."], ["add", "."]):
        subprocess.run(["git", *args], cwd=setup.workspace, check=True, capture_output=True, env=env)


@pytest.mark.parametrize("line", [
    "cd out && git grep KEY", "cd out && git grep KEY -- .", "cd out && git grep -n KEY -- b.txt",
    "cd out && git grep --untracked KEY", "cd out && git grep --no-index KEY", "cd out && git grep --cached KEY",
    "cd out && git grep -e KEY", "cd out && git grep -l KEY --", "cd out && git --no-pager grep KEY",
    "git -C out grep KEY", "git -C out grep -n KEY", "git -C out grep --cached KEY",
    "cd out && git grep -c KEY",
])
def test_git_grep_below_the_top_searches_only_there(setup: Setup, line: str) -> None:
    _repository(setup)
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git grep KEY", "cd out && cd .. && git grep KEY", "git -C out -C .. grep KEY",  # the top itself
    "cd out && git grep KEY -- ..", "cd out && git grep --no-index KEY ..",  # a pathspec leading back up
    "cd out && git grep KEY HEAD", "cd out && git grep KEY HEAD -- .",  # (a revision: maybe a tree below the top)
    "cd out && git grep KEY -- '*.py'", "cd out && git grep KEY -- ':/'",  # (a glob; magic from the top)
    "cd out && git grep --recurse-submodules KEY", "cd out && git grep --recurse KEY",  # (a submodule's own index)
    "git --git-dir=.git -C out grep KEY", "cd out && git -c core.worktree=.. grep KEY",  # (another repository)
    "cd out && env GIT_DIR=../.git git grep --cached KEY",
    "cd out && git --icase-pathspecs grep KEY -- .",
    "cd out; git grep KEY", "cd out || true && git grep KEY",  # (it may run at the top)
])
def test_its_neighbours_reading_the_denied_folder_ask(setup: Setup, line: str) -> None:
    _repository(setup)
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd out && git grep --cached KEY", "cd out && git grep KEY", "git -C out grep --cached KEY -- .",
    "git -C out grep KEY",
])
@pytest.mark.parametrize("planted", ["file", "folder"])
def test_a_repository_planted_on_the_way_asks(setup: Setup, line: str, planted: str) -> None:
    _repository(setup)
    if planted == "file":
        (setup.workspace / "out" / ".git").write_text("gitdir: ../.git\n", encoding="utf-8")
    else:  # (an empty folder git passes over, which the line may yet fill)
        (setup.workspace / "out" / ".git").mkdir()
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "printf 'gitdir: ../.git\\n' > out/.git && git -C out grep --cached KEY -- .",
    "printf 'gitdir: ../.git\\n' > out/.git; git -C out grep KEY",
    "printf 'gitdir: ../.git\\n' > out/.git && cd out && git grep --cached KEY",
])
def test_a_repository_the_line_plants_asks(setup: Setup, line: str) -> None:
    _repository(setup)
    rules = rule_text("[cd|printf|git grep] **") + rule_text("@workspace/src/**", effect="deny", tool="read")
    assert effect_under(setup, rules + writes_allowed("@workspace/out/**"), line) is not Effect.ALLOW
    assert effect_under(setup, rules + writes_allowed("@workspace/out/**"), "printf x > out/a.txt") is Effect.ALLOW
