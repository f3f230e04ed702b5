"""s162: the folders git writes outside its repository are judged by the write rules. With the
agent's writes kept to ``out/``, a rule ``git **`` let ``git worktree add ../x`` check the
repository out into ../x and ``git worktree add ~/bin`` put its programs in a folder on the
``PATH``; ``git worktree move``, ``remove`` and ``repair``, ``git clone`` and ``git init`` write
folders they are given the same way.

Proven with git 2.39 under bash and dash: see the s162 lines of the hostile corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_folder_writes import folders_written
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git [worktree add -b|clone --separate-git-dir] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""




@pytest.fixture
def repository(setup: Setup) -> Path:
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "commit", "-q", "--allow-empty", "-m", "x")
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    return setup.workspace


@pytest.mark.parametrize("line", [
    "git worktree add ../x",
    "git worktree add ~/bin",
    "git worktree add ~/.local/bin main~0",
    "git worktree add -b feature ../x",  # (a rule naming the option trusts it, not where the worktree goes)
    "git worktree move out/w ../y",  # the new place
    "git worktree move ../y out/w",  # the worktree leaves the old one
    "git worktree remove ../y",
    "git worktree repair ../y",  # it rewrites ../y/.git
    "git worktree $action ../x",  # an action known only when the line runs
    "git clone ../remote.git ../z",
    "git clone ../remote.git",  # into ./remote
    "git clone --separate-git-dir ../g ../remote.git out/r",
    "git init ../z",
])
def test_a_folder_git_writes_outside_the_write_rules_asks(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git worktree add out/x", "git worktree add -b feature out/x", "git worktree move out/w out/y",
    "git worktree remove out/w", "git worktree list", "git worktree prune", "git clone ../remote.git out/r",
    "git clone ../remote.git out/r/", "git init out/r",
])
def test_a_folder_the_write_rules_open_leaves_the_rule_in_force(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "written"), [
    (("git", "worktree", "add", "--lock", "--reason", "r", "-b", "b", "../x", "main"), ("./../x",)),
    (("git", "-C", "sub", "worktree", "add", "x"), ("sub/x",)),
    (("git", "worktree", "add", "--unknown", "x"), (None,)),  # (it may take the next word)
    (("git", "worktree", "-q", "add", "x"), (None,)),
    (("git", "worktree", "list", "--porcelain"), ()),
    (("git", "clone", "host:path/r.git/"), ("./r",)),
    (("git", "clone", "https://example.com/r/.git"), ("./r",)),
    (("git", "clone", "host:"), (None,)),
    (("git", "init"), ("./.",)),
    (("git", "init", "--bare", "-b", "main", "/tmp/r"), ("/tmp/r",)),
    (("git", "status"), ()),
])
def test_the_folders_each_form_writes(line: tuple[str, ...], written: tuple[str | None, ...]) -> None:
    at = next(k for k, w in enumerate(line) if k > 0 and w in ("worktree", "clone", "init", "status"))
    assert folders_written(line, at) == written


# -- a patch names the files git writes (s236) -----------------------------------------------------
#: git apply writes every file the patch names below the folder it runs in (git am: below the top
#: of the worktree); the line names only the patch, which the agent may write into out/. With
#: writes kept to out/, git apply rewrote .github/workflows/ci.yml under ``git **`` (the s236
#: lines of the hostile corpus, under bash and dash).
@pytest.mark.parametrize("line", [
    "git apply out/p.patch", "git apply < out/p.patch", "git apply -- out/p.patch", "git --no-pager apply out/p.patch",
    "git am out/p.mbox", "git am < out/p.mbox",
])
def test_a_patch_git_applies_is_judged_as_writing_below_its_folder(setup: Setup, repository: Path,
                                                                   line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git apply --check out/p.patch", "git apply --stat out/p.patch"])
def test_a_patch_only_checked_writes_nothing_and_stays_allowed(setup: Setup, repository: Path, line: str) -> None:
    setup.write_user_rules(RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git apply [--check|--stat] **"\n')
    setup.engine.refresh()
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "written"), [
    (("git", "apply", "p.patch"), ("./.",)),
    (("git", "-C", "sub", "apply", "p.patch"), ("sub/.",)),
    (("git", "apply", "--check", "p.patch"), ()),
    (("git", "apply", "--stat", "--numstat", "p.patch"), ()),
    (("git", "apply", "--cached", "p.patch"), ()),
    (("git", "apply", "--cached", "--index", "p.patch"), ("./.",)),
    (("git", "apply", "--check", "--apply", "p.patch"), ("./.",)),
    (("git", "apply", "--check", None), ("./.",)),  # (a word known only when it runs may be --apply)
    (("git", "am", "p.mbox"), (None,)),
])
def test_the_folder_a_patch_is_applied_below(line: tuple[str | None, ...], written: tuple[str | None, ...]) -> None:
    at = next(k for k, w in enumerate(line) if k > 0 and w in ("apply", "am"))
    assert folders_written(line, at) == written
