"""s279: a git or hg command that reads the repository as a whole without naming what it reads
(``git diff``, ``git show HEAD:src/main.py``, ``git log -p``, ``git status``, ``hg files``,
``hg grep KEY``) is judged as if the line named the repository's top folder: a read deny below
it asks. Under ``git **`` with ``@workspace/src/**`` read-denied, each printed src/main.py's
``KEY=secret`` (or its name) under bash and dash. A pathspec the engine reads as git does (plain
names after ``--``) keeps it to those; without a read deny nothing changes."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

VCS = rule_text("git **", "hg **", "cd **")
DENIED = VCS + rule_text("@workspace/src/**", effect="deny", tool="read")

GIT_WHOLE = [
    "git diff", "git diff --cached", "git diff HEAD", "git diff --stat", "git log -p", "git log --stat",
    "git log --name-only", "git log -S KEY", "git show", "git show --stat", "git show HEAD:src/main.py",
    "git show HEAD:out/x", "git show HEAD:src/main.py -- out", "git status", "git status -s",
    "git status --short out", "git cat-file -p HEAD:src/main.py", "git archive HEAD", "git ls-tree -r HEAD",
    "git whatchanged -p", "git format-patch -1 --stdout", "git stash show -p", "git fast-export --all",
    "git rev-list --objects --all", "git grep KEY -- :/", "git blame src/main.py",
    "git diff -- src", "git diff -- .", "git diff -- '*.py'", "git diff -- ':(glob)**'", "git log -p -- src/main.py",
    "git -C src diff -- main.py", "git --icase-pathspecs diff -- SRC", "git log --author -p",
    "git -p diff", "git --no-pager show",
]
HG_WHOLE = [
    "hg files", "hg grep KEY", "hg grep --all KEY", "hg cat -r . path:src", "hg cat -r . 'glob:**.py'",
    "hg status", "hg st --all", "hg diff", "hg diff -r 0", "hg log -p", "hg log -v", "hg log -T '{diff}'",
    "hg export", "hg annotate 're:.*'", "hg blame 'set:**'", "hg --cwd out files", "hg manifest",
]


@pytest.mark.parametrize("line", GIT_WHOLE + HG_WHOLE)
def test_reading_the_whole_repository_past_a_read_deny_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd out && git diff", "cd out && git show", "cd out && git status", "cd out && git grep KEY -- :/",
    "cd out && hg files", "cd out && hg grep KEY",
])
def test_from_a_folder_below_it_reads_from_the_top(setup: Setup, line: str) -> None:
    (setup.workspace / ".git").mkdir()
    (setup.workspace / ".hg").mkdir()
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git log", "git log --oneline", "git log --oneline --graph --decorate --all", "git log -n 5",
    "git log --format='%h %s' -10", "git shortlog -sn", "git reflog -10", "git stash list", "git rev-parse HEAD",
    "git branch", "git diff -- out", "git diff --stat -- out", "git log -p -- out", "git diff HEAD~1 -- a.txt",
    "git -P diff -- out",
    "hg log", "hg log -l 3", "hg log -G -r tip", "hg files out", "hg cat out/a.txt", "hg diff out",
    "hg log -p out", "hg st out", "hg grep KEY out",
])
def test_what_keeps_away_from_the_deny_stays_allowed(setup: Setup, line: str) -> None:
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", GIT_WHOLE + HG_WHOLE)
def test_without_a_read_deny_it_stays_allowed(setup: Setup, line: str) -> None:
    effect = effect_under(setup, VCS, line)
    if line in ("git format-patch -1 --stdout", "git fast-export --all", "git rev-list --objects --all"):
        assert effect is not Effect.DENY  # (ask for their own reasons, before s279 too)
    else:
        assert effect is Effect.ALLOW


# -- s281: a word before `--` naming a file is a path ------------------------------------------
@pytest.fixture
def worktree(setup: Setup) -> Setup:
    (setup.workspace / ".git" / "refs" / "heads").mkdir(parents=True)
    (setup.workspace / "a.txt").write_text("a\n", encoding="utf-8")
    (setup.workspace / "cafe").write_text("c\n", encoding="utf-8")
    return setup


@pytest.mark.parametrize("line", [
    "git diff a.txt", "git log -p a.txt", "git show a.txt", "git diff HEAD a.txt", "git diff HEAD~1 a.txt out",
    "git diff out", "git log --stat a.txt", "git whatchanged -p a.txt",
])
def test_a_word_naming_a_file_limits_the_read_as_after_a_double_dash(worktree: Setup, line: str) -> None:
    # (git takes a word that is not a revision as a path only when it names an existing file,
    # and refuses one that is both: "ambiguous argument", git 2.39)
    assert effect_under(worktree, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git diff nothere", "git diff a.txt nothere", "git diff a.txt '*.py'", "git diff a.txt src/main.py",
    "git diff HEAD:src/main.py a.txt", "git diff a.txt | cat", "git branch x && git diff a.txt",
    "git rm -q a.txt; git diff a.txt", "git diff cafe", "git diff -S KEY a.txt HEAD", "git blame a.txt",
    "cd out && git diff ../a.txt",
])
def test_a_word_git_may_take_for_a_revision_keeps_the_whole_read(worktree: Setup, line: str) -> None:
    # (another command of the line may remove the file or make a ref of its name before git
    # runs; `cafe` may be an abbreviated object name; `..` is revision syntax to git, a word
    # holding it is not read here)
    assert effect_under(worktree, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize(("place", "text"), [
    ("refs/heads/a.txt", "0" * 40 + "\n"), ("refs/tags/a.txt", "0" * 40 + "\n"),
    ("packed-refs", "# pack-refs with: peeled\n" + "0" * 40 + " refs/remotes/a.txt\n"),
    ("config", "[core]\n\tworktree = ../elsewhere\n"), ("config", "[core]\n\tbare = yes\n"),
])
def test_a_file_named_like_a_ref_or_a_moved_worktree_keeps_the_whole_read(worktree: Setup, place: str,
                                                                          text: str) -> None:
    path = worktree.workspace / ".git" / place
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert effect_under(worktree, DENIED, "git diff a.txt") is not Effect.ALLOW


def test_inside_the_repository_folder_a_file_name_is_a_revision(worktree: Setup) -> None:
    (worktree.workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert effect_under(worktree, DENIED, "cd .git && git diff HEAD") is not Effect.ALLOW


def test_a_file_another_command_of_the_line_may_remove_is_not_a_path(worktree: Setup) -> None:
    # The person's `make clean` deletes a.txt, a command git trusts makes a branch of its name:
    # `git log -p a.txt` then printed every commit's patch, src/main.py's KEY=secret with it
    # (git 2.39, GNU make 4.3, bash and dash, s281). The engine does not see what make deletes.
    (worktree.workspace / "Makefile").write_text("clean:\n\trm -f a.txt\n", encoding="utf-8")
    rules = rule_text("[git|cd|make] **") + rule_text("@workspace/src/**", effect="deny", tool="read")
    assert effect_under(worktree, rules, "git log -p a.txt") is Effect.ALLOW
    line = "make clean && git update-ref refs/heads/a.txt HEAD && git log -p a.txt"
    assert effect_under(worktree, rules, line) is not Effect.ALLOW
