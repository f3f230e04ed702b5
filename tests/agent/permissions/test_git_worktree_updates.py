"""s241: git commands that write worktree files from a tree git chooses (``git checkout BRANCH``,
``git switch``, ``git merge``…) ask where a deny or ask write rule may match a file of the
worktree. With ``.github/**`` write-denied under ``git **``, the agent put its own workflow in
place with commands each allowed on its own: ``git add`` of a file in out/ (its blob), ``git
mktree`` (a tree holding it at .github/workflows/ci.yml), ``git read-tree TREE``, ``git commit``,
``git update-ref`` and ``git merge`` (proven with git 2.39 under bash and dash; the branch a
contributor pushed: the s241 lines of the hostile corpus)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_worktree_updates import tops, updates_worktree
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .engine_verdicts import rule_text, writes_allowed

GIT_AND_OUT = rule_text("git **", "printf **") + writes_allowed("@workspace/out/**")
CI_DENIED = GIT_AND_OUT + rule_text("@workspace/.github/**", effect="deny", tool="write")
WORKFLOW = ".github/workflows/ci.yml"


@pytest.fixture
def repository(setup: Setup) -> Path:
    (setup.workspace / ".github" / "workflows").mkdir(parents=True)
    (setup.workspace / WORKFLOW).write_text("on: push\n", encoding="utf-8")
    (setup.workspace / "src").mkdir(exist_ok=True)
    (setup.workspace / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    (setup.workspace / "out").mkdir(exist_ok=True)
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "add", "-A")
    git_in(setup.workspace, "commit", "-q", "-m", "x")
    git_in(setup.workspace, "branch", "other")
    _rules(setup, CI_DENIED)
    return setup.workspace


def _rules(setup: Setup, text: str) -> None:
    setup.write_user_rules(text)
    setup.engine.refresh()


def _run(folder: Path, line: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(folder), "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["dash", "-c", line], cwd=folder, check=True, capture_output=True, env=env)


#: The tool calls that put the agent's workflow in place (the blob of "on: pwned\n", then the
#: trees .github/workflows/ci.yml → .github are named by their content, the same everywhere).
STEPS = (
    "printf 'on: pwned\\n' > out/ci.yml",
    "git add out/ci.yml",
    "printf '100644 blob cd028e55d872a744649ab7336d4fb49436a4f423\\tci.yml\\n' | git mktree",
    "printf '040000 tree f55c4e53b81d72962e5eff2ef2890b4a476347ec\\tworkflows\\n' | git mktree",
    "printf '040000 tree 8081ec2db5062f2adc951d4b766571460f2d5e31\\t.github\\n' | git mktree",
    "git update-ref refs/heads/keep HEAD",
    "git read-tree 9df2f4fcf3b012aecbe40db3fe6d51129e2d3286",
    "git commit -q -m ci",
    "git update-ref refs/heads/evil HEAD",
    "git update-ref refs/heads/main keep",
    "git read-tree HEAD",
    "git merge evil",
)


def test_allowed_steps_cannot_put_a_denied_file_in_place(setup: Setup, repository: Path) -> None:
    refused = []
    for step in STEPS:
        if _verdict(setup, step) is Effect.ALLOW:
            _run(repository, step)
        else:
            refused.append(step)
    assert refused == ["git merge evil"]  # (everything before it writes out/ and the repository only)
    assert (repository / WORKFLOW).read_text(encoding="utf-8") == "on: push\n"


@pytest.mark.parametrize("line", [
    "git checkout other", "git checkout other~0", "git switch other", "git merge other", "git --no-pager merge other",
    "git pull . other", "git -C src checkout other", "git --work-tree=. checkout other", "git $sub other",
])
def test_a_command_writing_the_worktree_from_a_tree_asks_beside_a_denied_file(setup: Setup, repository: Path,
                                                                              line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git status", "git diff", "git log --oneline", "git add out", "git commit -m x", "git read-tree HEAD",
    "git reset HEAD", "git branch", "git stash list", "git show other:.github/workflows/ci.yml",
])
def test_commands_leaving_the_worktree_alone_stay_allowed(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git checkout other", "git switch other", "git merge other"])
@pytest.mark.parametrize("denied", ["~/.ssh/**", "@workspace/.git/**"])  # (no tree puts a file in .git)
def test_without_a_denied_file_in_the_worktree_the_rule_stays_in_force(setup: Setup, repository: Path,
                                                                      line: str, denied: str) -> None:
    _rules(setup, GIT_AND_OUT + rule_text(denied, effect="deny", tool="write"))
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("rule", [rule_text("@workspace/src/**", effect="ask", tool="write"),
                                  rule_text("@workspace/**/*.env", effect="deny", tool="write")])
def test_an_ask_or_a_glob_below_the_worktree_counts_too(setup: Setup, repository: Path, rule: str) -> None:
    _rules(setup, GIT_AND_OUT + rule)
    assert _verdict(setup, "git checkout other") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "writes"), [
    (("git", "checkout", "main"), True),
    (("git", "-C", "src", "switch", "main"), True),
    (("git", "reset", "--hard"), True),
    (("git", "reset", "--ha", "HEAD~"), True),  # (a prefix of --hard)
    (("git", "reset", "HEAD~"), False),
    (("git", "reset", None), True),  # (a word known only when it runs may be --hard)
    (("git", "read-tree", "-mu", "HEAD", "x"), True),
    (("git", "read-tree", "-u", "-n", "HEAD"), False),
    (("git", "read-tree", "HEAD"), False),
    (("git", "restore", "--staged", "a"), False),
    (("git", "restore", "-sWIP", "-S", "a"), False),
    (("git", "restore", "-SW", "a"), True),
    (("git", "restore", "-sSTAGE", "a"), True),  # (-s takes the rest of the word: no mode named)
    (("git", "stash", "list"), False),
    (("git", "stash"), True),
    (("git", "stash", "pop"), True),
    (("git", "bisect", "log"), False),
    (("git", "pull", "--dry-run"), False),
    (("git", "pull"), True),
    (("git", "checkout-index", "-a"), True),
    (("git", "status"), False),
    (("git", "--version"), False),
    (("git", None, "main"), True),
    (("git", "worktree", "add", "out/wt", "other"), True),
    (("git", "worktree", None, "out/wt"), True),
    (("git", "worktree", "list"), False),
    (("git", "worktree", "prune"), False),
    (("git", "submodule", "add", "../x", "out/x"), True),
    (("git", "submodule", "update", "--init"), True),
    (("git", "submodule", "deinit", "-f", "x"), True),
    (("git", "submodule"), False),
    (("git", "submodule", "--quiet", "status"), False),
    (("git", "submodule", "foreach", "git status"), False),
    (("git", "clean"), True),
    (("git", "clean", "-fdx"), True),
    (("git", "clean", "-fen"), True),  # (-e takes the rest of the word: no dry run named)
    (("git", "clean", "-fdn"), False),
    (("git", "clean", "--dry-run"), False),  # (the line it runs is judged on its own)
])
def test_the_forms_that_write_the_worktree(line: tuple[str | None, ...], writes: bool) -> None:
    assert updates_worktree(line) is writes


def test_the_worktree_top_is_found_from_where_git_starts(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    assert tops(("git", "-C", "src", "checkout", "main"), [tmp_path / "repo"]) == [str(tmp_path / "repo")]
    assert tops(("git", "checkout", "main"), [tmp_path / "repo" / "src"]) == [str(tmp_path / "repo")]
    assert tops(("git", "--work-tree=../w", "checkout", "main"), [tmp_path / "repo"]) == [str(tmp_path / "w")]
    assert tops(("git", "-C", None, "checkout", "main"), [tmp_path / "repo"]) == [None]


def test_a_new_worktree_is_the_top_of_what_it_writes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    assert tops(("git", "worktree", "add", "out/wt", "main"), [repo]) == [str(repo / "out" / "wt")]
    assert tops(("git", "-C", "src", "worktree", "add", "-b", "x", "../wt"), [repo]) == [str(repo / "src" / "../wt")]
    assert tops(("git", "worktree", "add", "/abs/wt"), [repo]) == ["/abs/wt"]
    assert tops(("git", "worktree", "add", "~/wt"), [repo]) == [None]  # (the home is not read here)
    assert tops(("git", "worktree", "add", "--unknown", "wt"), [repo]) == [None]


#: s249: the checkout of a new worktree below out/ holds the branch's CI workflow, which a glob
#: deny names wherever it is (proven with git 2.39 under bash and dash: the s249 corpus lines).
EVERY_CI_DENIED = GIT_AND_OUT + rule_text("@workspace/**/.github/**", effect="deny", tool="write")


def test_a_new_worktree_asks_where_a_glob_deny_may_match_below_it(setup: Setup, repository: Path) -> None:
    _rules(setup, EVERY_CI_DENIED)
    assert _verdict(setup, "git worktree add out/wt other") is not Effect.ALLOW


def test_a_new_worktree_really_writes_what_the_glob_denies(setup: Setup, repository: Path) -> None:
    _run(repository, "git worktree add out/wt other")
    assert (repository / "out" / "wt" / WORKFLOW).is_file()


@pytest.mark.parametrize("line", ["git worktree add out/wt other", "git worktree list", "git worktree prune"])
def test_a_new_worktree_beside_a_deny_that_cannot_match_below_it_stays_allowed(setup: Setup, repository: Path,
                                                                               line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW  # (CI_DENIED names only the top's .github)


@pytest.mark.parametrize("line", ["git submodule add ../x out/x"])
def test_a_submodule_checkout_asks_where_a_glob_deny_may_match_below_the_top(setup: Setup, repository: Path,
                                                                             line: str) -> None:
    _rules(setup, EVERY_CI_DENIED)
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git submodule", "git submodule status", "git submodule summary"])
def test_reading_the_submodules_stays_allowed(setup: Setup, repository: Path, line: str) -> None:
    _rules(setup, EVERY_CI_DENIED)
    assert _verdict(setup, line) is Effect.ALLOW


def test_git_clean_asks_where_a_deny_may_match_below(setup: Setup, repository: Path) -> None:
    # (s249: with clean.requireForce = false in the person's settings, `git clean` deleted an
    # untracked src/local.env beside **/*.env write-denied, git 2.39 under bash and dash)
    _rules(setup, GIT_AND_OUT + rule_text("@workspace/**/*.env", effect="deny", tool="write"))
    assert _verdict(setup, "git clean") is not Effect.ALLOW


#: s255: the repository's own core.worktree moves the worktree git writes: with it set to
#: ../../site in ws/.git/config, `git checkout ci-update` run in ws wrote
#: ../site/.github/workflows/ci.yml (git 2.39, bash and dash). Here the folder is ~/site.
def _elsewhere(setup: Setup, repository: Path) -> Path:
    site = setup.home / "site"
    site.mkdir()
    git_in(repository, "config", "core.worktree", os.path.relpath(site, repository / ".git"))
    return site


def test_the_worktree_the_repository_settings_name_is_a_top(setup: Setup, repository: Path) -> None:
    site = _elsewhere(setup, repository)
    assert str(site) in tops(("git", "checkout", "other"), [repository])
    assert str(site) in tops(("git", "--git-dir=.git", "checkout", "other"), [repository])
    assert tops(("git", "--work-tree=out", "checkout", "other"), [repository]) == [str(repository / "out")]
    git_in(repository, "config", "core.worktree", "~/site")
    assert None in tops(("git", "checkout", "other"), [repository])


def test_a_deny_below_the_worktree_the_repository_settings_name_asks(setup: Setup, repository: Path) -> None:
    _rules(setup, GIT_AND_OUT + rule_text("~/site/.github/**", effect="deny", tool="write"))
    assert _verdict(setup, "git checkout other") is Effect.ALLOW  # (the deny is outside this worktree)
    _elsewhere(setup, repository)
    assert _verdict(setup, "git checkout other") is not Effect.ALLOW


def test_the_worktree_the_repository_settings_name_is_where_checkout_writes(setup: Setup, repository: Path) -> None:
    site = _elsewhere(setup, repository)
    _run(repository, "git checkout -q -f other")
    assert (site / WORKFLOW).is_file()


@pytest.mark.parametrize("line", ["git clean -n", "git clean --dry-run", "git clean -nd", "git clean -ndx",
                                  "git clean -n -X -e '*.o'", "git clean --dry-run -q src"])
def test_a_dry_run_of_git_clean_is_covered_beside_a_deny_below(setup: Setup, repository: Path, line: str) -> None:
    # (s254: -n/--dry-run deleted and opened for writing nothing, with clean.requireForce =
    # false too: strace, git 2.39, bash and dash)
    _rules(setup, GIT_AND_OUT + rule_text("@workspace/**/*.env", effect="deny", tool="write"))
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git clean -d", "git clean -x", "git clean -f", "git clean -fd", "git clean -nf",
                                  "git clean -i", "git clean --force"])
def test_git_clean_that_may_delete_still_asks(setup: Setup, repository: Path, line: str) -> None:
    # (without -n: judged as s249 judges `git clean`; -f and -i delete, covered only by naming them)
    _rules(setup, GIT_AND_OUT + rule_text("@workspace/**/*.env", effect="deny", tool="write"))
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git clean -d", "git clean -x", "git clean -X", "git clean -qd", "git clean -fd",
                                  "git clean -i", "git clean --force"])
def test_git_clean_deleting_more_is_covered_only_by_a_rule_naming_the_option(setup: Setup, repository: Path,
                                                                             line: str) -> None:
    # (where clean.requireForce = false, -x deletes the ignored files too, .env among them: no
    # deny below needed for that to matter)
    _rules(setup, GIT_AND_OUT)
    assert _verdict(setup, line) is not Effect.ALLOW


def test_deleting_with_git_clean_is_covered_by_a_rule_naming_the_option(setup: Setup, repository: Path) -> None:
    _rules(setup, GIT_AND_OUT + rule_text("git clean -fd"))
    assert _verdict(setup, "git clean -fd") is Effect.ALLOW
