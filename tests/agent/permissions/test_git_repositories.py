"""s149: git runs in repositories other than the one it finds from the folder the line runs in:
the one ``-C`` leads to, the one ``--git-dir`` names (with the worktree ``--work-tree`` names),
and a local repository at the other end of a push (``git receive-pack`` runs its hooks and what
its settings name: ``core.alternateRefsCommand``) or of a fetch (``git upload-pack`` reads its
settings). Each one's settings, hooks and what they name count as code the command runs.

Proven with git 2.39 under bash and dash (strace -f -e trace=execve): see the s149 lines of the
hostile corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, git_repositories
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "[printf|mkdir|chmod] **"
"""
#: A repository written with plain files (no git command): its settings run a shell command.
BARE = ("mkdir -p {r}/objects/info {r}/refs && printf 'ref: refs/heads/main\\n' > {r}/HEAD && "
        "printf '[core]\\n\\tbare = true\\n\\talternateRefsCommand = touch PWNED\\n' > {r}/config && ")
WORKTREE = ("mkdir -p out/r/.git/objects out/r/.git/refs && printf 'ref: refs/heads/main\\n' > out/r/.git/HEAD && "
            "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > out/r/.git/config && ")
GIT_DIR = ("mkdir -p out/r/objects out/r/refs && printf 'ref: refs/heads/main\\n' > out/r/HEAD && "
           "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > out/r/config && ")




def _verdict(setup: Setup, line: str, writable: str = "@workspace/out/**") -> Effect | None:
    return effect_under(setup, RULES + writes_allowed(writable), line)


@pytest.fixture
def repository(setup: Setup) -> Path:
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "commit", "-q", "--allow-empty", "-m", "x")
    return setup.workspace


@pytest.mark.parametrize("line", [
    WORKTREE + "git -C out/r status",
    WORKTREE + "git -C out -C r status",  # each -C is relative to the last
    WORKTREE + "git -C out/r st",  # (an alias of the repository's settings, as well)
    GIT_DIR + "git --git-dir=out/r status",
    GIT_DIR + "git --git-dir out/r --work-tree . status",
    GIT_DIR + "git --work-tree=. --git-dir=out/r diff",
    "git -C out/r status",  # the repository the agent may put there
    "git --git-dir=out/r log",
])
def test_the_repository_the_global_options_name_counts(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git -C src log", "git -C src status", "git --git-dir=.git status", "git --git-dir=.git --work-tree=. log",
    "git --no-pager log",
])
def test_a_repository_the_agent_may_not_write_leaves_the_rule_in_force(setup: Setup, repository: Path,
                                                                        line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    BARE.format(r="out/r.git") + "git push out/r.git main",
    BARE.format(r="out/r.git") + "git push out/r main",  # git tries r/.git, r, r.git/.git and r.git
    BARE.format(r="out/r.git") + "git push file://{ws}/out/r.git main",
    "git init -q --bare out/r.git && printf '#!/bin/sh\\ntouch PWNED\\n' > out/r.git/hooks/post-receive && "
    "chmod +x out/r.git/hooks/post-receive && git push out/r.git main",
    "git push out/r.git main",
    "git push ./out/r HEAD:refs/heads/x",
    "git fetch out/r.git",  # git upload-pack reads that repository's settings
    "git pull out/r.git main",
    "git ls-remote out/r.git",
])
def test_a_local_repository_at_the_other_end_counts(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line.replace("{ws}", str(setup.workspace))) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git fetch", "git fetch origin", "git ls-remote origin",
    "git push git@example.com:x.git main", "git push https://example.com/x.git main",
    # (not ``git push ../remote.git main``: a repository named by its path is written by the push,
    # and judged by the write rules since s301, ``test_git_file_writes``; nor ``git push origin
    # main`` with origin's URL that path, since s325, ``test_git_configured_places``)
])
def test_a_remote_the_agent_may_not_write_leaves_the_rule_in_force(setup: Setup, repository: Path,
                                                                   line: str) -> None:
    git_in(repository, "remote", "add", "origin", "../remote.git")
    assert _verdict(setup, line) is Effect.ALLOW


def test_a_remote_whose_url_is_a_folder_the_agent_may_write_counts(setup: Setup, repository: Path) -> None:
    git_in(repository, "remote", "add", "mirror", "out/mirror.git")
    assert _verdict(setup, "git push mirror main") is not Effect.ALLOW
    git_in(repository, "config", "remote.mirror.url", "../elsewhere.git")
    assert _verdict(setup, "git fetch mirror") is Effect.ALLOW  # (a push writes there: s325)
    git_in(repository, "config", "remote.mirror.pushurl", "out/mirror.git")
    assert _verdict(setup, "git push mirror main") is not Effect.ALLOW


def test_the_remote_a_bare_push_uses_counts(setup: Setup, repository: Path) -> None:
    git_in(repository, "remote", "add", "mirror", "out/mirror.git")
    assert _verdict(setup, "git push") is not Effect.ALLOW
    assert _verdict(setup, "git fetch") is not Effect.ALLOW


def test_a_rewritten_url_counts(setup: Setup, repository: Path) -> None:
    git_in(repository, "config", f"url.{setup.workspace}/out/.insteadOf", "mine:")
    assert _verdict(setup, "git push mine:r.git main") is not Effect.ALLOW


def test_the_person_s_receive_hook_makes_that_repository_and_home_count(setup: Setup, repository: Path,
                                                                          tmp_path: Path) -> None:
    """A hook of the receiving repository is the person's program, as one of their own is. (Since
    s325 a push to a remote whose URL is a path is judged as writing that repository too, so it
    asks outside the write rules whatever its hooks: the fetch is the line left allowed.)"""
    other = tmp_path / "other.git"
    git_in(tmp_path, "init", "-q", "--bare", str(other))
    # (by a remote's name: a path the line names is a folder the push writes, s301)
    git_in(repository, "remote", "add", "other", str(other))
    line = "git push other main"
    hook = other / "hooks" / "post-receive"
    hook.write_text("#!/bin/sh\nexec ~/.local/bin/notify\n", encoding="utf-8")
    hook.chmod(0o755)
    assert _verdict(setup, line, "~/.cache/**") is not Effect.ALLOW
    assert _verdict(setup, f"git fetch {other}", "~/.cache/**") is Effect.ALLOW  # upload-pack runs no hook


def test_where_git_runs(tmp_path: Path) -> None:
    where = git_repositories.folders(("git", "-C", "a", "-C", "b", "--git-dir=g", "--work-tree", "t", "log"), [tmp_path])
    assert where.starts == (tmp_path / "a" / "b",)
    assert where.named == (git_repositories.Named(tmp_path / "a/b/g", tmp_path / "a/b/t"),)
    assert git_repositories.folders(("git", "-C", "/x", "log"), [tmp_path]).starts == (Path("/x"),)
    assert git_repositories.folders(("git", "-C", None, "log"), [tmp_path]).unknown
    assert git_repositories.folders(("git", "log", "-C", "x"), [tmp_path]).starts == (tmp_path,)


def test_the_other_end(tmp_path: Path) -> None:
    none = git_repositories.Remotes({"origin": ("https://example.com/x",)}, (), ())
    ends, unknown = git_repositories.other_ends(("git", "push", "-o", "out/a", "out/r", "out/b"), [tmp_path], none)
    assert not unknown and tmp_path / "out/r.git" in ends and tmp_path / "out/a" not in ends
    assert tmp_path / "out/b" not in ends  # a refspec
    assert git_repositories.other_ends(("git", "push", "origin", "main"), [tmp_path], none) == ([], False)
    assert git_repositories.other_ends(("git", "push", "host:out/r", "main"), [tmp_path], none) == ([], False)
    assert git_repositories.other_ends(("git", "log", "out/r"), [tmp_path], none) == ([], False)
    assert git_repositories.other_ends(("git", "push", "x"), [tmp_path], None) == ([], True)
    assert git_repositories.other_ends(("git", "push", "--repo=out/r"), [tmp_path], none)[0][0] == tmp_path / "out/r/.git"


def test_an_option_not_known_here_that_may_take_a_value_makes_every_operand_count(tmp_path: Path) -> None:
    none = git_repositories.Remotes({}, (), ())
    for argv in (("git", "push", "-fo", "x", "out/r", "main"), ("git", "push", "--receive", "x", "out/r", "main")):
        ends, _ = git_repositories.other_ends(argv, [tmp_path], none)
        assert tmp_path / "out/r.git" in ends, argv


# -- s162: the plumbing under push and fetch, every repository a fetch names, git remote's fetches
@pytest.mark.parametrize("line", [
    "mkdir -p out/r.git/objects out/r.git/refs out/r.git/hooks && printf 'ref: refs/heads/main\\n' > out/r.git/HEAD && "
    "printf '#!/bin/sh\\ntouch PWNED\\n' > out/r.git/hooks/post-receive && chmod +x out/r.git/hooks/post-receive && "
    "git send-pack out/r.git main",  # git receive-pack runs the hook there
    "git send-pack out/r.git main",
    "git send-pack ./out/r main",  # (git tries r.git for r)
    "git fetch-pack out/r.git main",
])
def test_the_plumbing_under_push_and_fetch_reaches_the_other_end(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


#: Rules naming the fetches of many remotes (the options need naming: ``git **`` does not cover them).
MANY = ('\n[[rule]]\neffect = "allow"\ntool = "shell"\n'
        'pattern = "git [fetch --multiple|fetch --all|remote update|remote show] **"\n')


def _many(setup: Setup, line: str) -> Effect | None:
    return effect_under(setup, RULES + MANY + writes_allowed("@workspace/out/**"), line)


def test_every_repository_fetch_multiple_names_counts(setup: Setup, repository: Path) -> None:
    git_in(repository, "remote", "add", "origin", "../remote.git")
    assert _many(setup, "git fetch --multiple origin ../other.git") is Effect.ALLOW
    assert _many(setup, "git fetch --multiple origin out/r.git") is not Effect.ALLOW
    git_in(repository, "remote", "add", "mirror", f"file://{repository}/out/mirror.git")
    assert _many(setup, "git fetch --all") is not Effect.ALLOW


def test_a_group_of_remotes_counts(setup: Setup, repository: Path) -> None:
    git_in(repository, "remote", "add", "origin", "../remote.git")
    git_in(repository, "config", "remotes.mine", "origin")
    assert _many(setup, "git fetch mine") is Effect.ALLOW
    # (a URL, not a path the settings name: that alone makes every git command ask)
    git_in(repository, "remote", "add", "mirror", f"file://{repository}/out/mirror.git")
    git_in(repository, "config", "--add", "remotes.mine", "mirror")
    assert _many(setup, "git fetch mine") is not Effect.ALLOW
    assert _many(setup, "git remote update mine") is not Effect.ALLOW


def test_git_remote_update_fetches_every_remote(setup: Setup, repository: Path) -> None:
    git_in(repository, "remote", "add", "origin", "../remote.git")
    assert _many(setup, "git remote update") is Effect.ALLOW
    assert _many(setup, "git remote show origin") is Effect.ALLOW
    git_in(repository, "remote", "add", "mirror", f"file://{repository}/out/mirror.git")
    assert _many(setup, "git remote update") is not Effect.ALLOW
    assert _many(setup, "git remote update origin") is Effect.ALLOW
    assert _many(setup, "git remote show mirror") is not Effect.ALLOW
