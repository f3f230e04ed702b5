"""s301: the files git's own subcommands write where no word of the line names them are judged
by the write rules, and a git subcommand not known to leave the worktree alone counts as
writing it. Under ``git **`` with the agent's writes kept to ``out/``, git 2.39 (bash and
dash, strace) ran ``git remote-ext origin 'touch PWNED'``'s command and ``git merge-index
PROGRAM FILE``'s program, and wrote ``0001-subject.patch``, ``git-bugreport-DATE.txt`` (then opened vim on it),
``git-diagnostics-DATE.zip`` and ``.merge_file_XXXXXX`` in the folder the line ran in,
``~/.git-credentials``, ``~/.cache/git/credential/socket`` and ``~/.gitconfig`` (``git
maintenance register``); ``git merge-resolve HEAD -- HEAD BRANCH`` wrote the branch's
write-denied ``.github/workflows/ci.yml``. ``git rm 'out/d/*'`` deleted a tracked ``out/d/x.env`` beside ``@workspace/**/*.env``
write-denied, and ``git push ../remote.git HEAD:refs/heads/evil`` wrote that repository's objects
and refs outside the write rules. The lines git runs in the hostile corpus's world are its s301 lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_file_writes import Written, written
from echo_desk.agent.permissions.git_worktree_updates import updates_worktree
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .engine_verdicts import rule_text, writes_allowed

GIT_AND_OUT = rule_text("git **") + writes_allowed("@workspace/out/**")
CI_DENIED = GIT_AND_OUT + rule_text("@workspace/.github/**", effect="deny", tool="write")
#: A person who trusts writing options by naming them: where they write is still judged.
NAMED_OPTIONS = rule_text("git [format-patch -o|bugreport -o|diagnose -o|credential-store --file] **")


@pytest.fixture
def repository(setup: Setup) -> Path:
    (setup.workspace / ".github" / "workflows").mkdir(parents=True)
    (setup.workspace / ".github" / "workflows" / "ci.yml").write_text("on: push\n", encoding="utf-8")
    (setup.workspace / "src" / "a.txt").write_text("a\n", encoding="utf-8")
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "add", "-A")
    git_in(setup.workspace, "commit", "-q", "-m", "x")
    git_in(setup.workspace, "branch", "other")
    _rules(setup, CI_DENIED + NAMED_OPTIONS)
    return setup.workspace


def _rules(setup: Setup, text: str) -> None:
    setup.write_user_rules(text)
    setup.engine.refresh()


@pytest.mark.parametrize("line", [
    "git format-patch HEAD~1",  # ./0001-x.patch
    "git format-patch main..other",
    "git bugreport",  # ./git-bugreport-DATE.txt, then the editor on it
    "git diagnose",  # ./git-diagnostics-DATE.zip
    "git unpack-file HEAD:src/a.txt",  # ./.merge_file_XXXXXX
    "git pack-objects out",  # ./out-HASH.pack beside out
    "git credential-store store",  # ~/.git-credentials
    "git credential-store erase",
    "git credential-cache store",  # ~/.cache/git/credential/socket, and its daemon
    "git credential-cache exit",
    "git maintenance register",  # ~/.gitconfig
    "git maintenance unregister",
    "git maintenance start",  # ~/.gitconfig and a timer
    "git maintenance stop",
    "git format-patch $revs",  # (a word known only when the line runs may be anything)
])
def test_a_file_git_writes_that_no_word_names_is_judged_by_the_write_rules(setup: Setup, repository: Path,
                                                                           line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git format-patch -o out HEAD~1", "git bugreport -o out", "git diagnose -o out",
    "git credential-store --file out/c store", "git credential-store get", "git maintenance run",
    "git pack-objects out/x", "git bundle create out/b HEAD", "git merge-base HEAD other", "git log",
])
def test_a_place_the_write_rules_open_leaves_the_rule_in_force(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git format-patch -o .github HEAD~1", "git bugreport -o .github"])
def test_the_place_a_named_option_gives_is_judged_as_before(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git merge-resolve HEAD -- HEAD other",  # (git's merge strategies run as commands)
    "git merge-octopus HEAD -- HEAD other",
    "git merge-recursive HEAD -- HEAD other",
    "git merge-subtree HEAD -- HEAD other",
    "git quiltimport",  # applies patches/series
    "git mergetool",
    "git rerere",  # writes recorded resolutions into conflicted files
    "git checkout--worker",
    "git submodule--helper update",
    "git newer-builtin",  # (not known: it may write anything)
])
def test_a_subcommand_not_known_to_leave_the_worktree_alone_asks_beside_a_denied_file(
        setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


def test_a_subcommand_not_known_to_leave_the_worktree_alone_stays_allowed_without_a_deny(
        setup: Setup, repository: Path) -> None:
    _rules(setup, GIT_AND_OUT + rule_text("@workspace/.git/**", effect="deny", tool="write"))
    assert _verdict(setup, "git merge-resolve HEAD -- HEAD other") is Effect.ALLOW


@pytest.fixture
def tracked_env(setup: Setup, repository: Path) -> Path:
    """A tracked ``out/d/x.env`` beside ``@workspace/**/*.env`` write-denied."""
    (setup.workspace / "out" / "d").mkdir()
    (setup.workspace / "out" / "d" / "x.env").write_text("T=1\n", encoding="utf-8")
    git_in(setup.workspace, "add", "-f", "out/d")
    git_in(setup.workspace, "commit", "-q", "-m", "env")
    _rules(setup, GIT_AND_OUT + rule_text("@workspace/**/*.env", effect="deny", tool="write"))
    return repository


@pytest.mark.parametrize("line", [
    "git rm 'out/d/*'",  # (git matches the pathspec itself: it deleted out/d/x.env, git 2.39)
    "git rm 'out/d/x.en?'",
    "git rm -- 'out/*'",
    "git --icase-pathspecs rm out/d/X.ENV",
    "git rm ':(glob)out/**'",  # (a magic pathspec: not known here)
])
def test_a_pathspec_git_rm_matches_itself_is_judged_below_its_folder(setup: Setup, tracked_env: Path,
                                                                     line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git rm out/a", "git mv out/a out/b", "git status"])
def test_a_plain_path_of_git_rm_is_judged_as_its_word(setup: Setup, tracked_env: Path, line: str) -> None:
    # (a plain file: a folder git mv moves away is judged below it, s316)
    (setup.workspace / "out" / "a").write_text("a\n", encoding="utf-8")
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git push ../remote.git HEAD:refs/heads/evil",  # (wrote ../remote.git's objects and refs: git 2.39)
    "git push ~/r.git main",
    "git push /tmp/r.git main",
    "git push file:///tmp/r.git main",
    "git push --repo=../remote.git",
    "git push -o x ../remote.git main",
    "git send-pack ../remote.git main",
    "git push $where main",
])
def test_a_push_to_a_repository_named_by_its_path_is_judged_as_writing_there(setup: Setup, repository: Path,
                                                                              line: str) -> None:
    _rules(setup, GIT_AND_OUT)
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git push origin main", "git push", "git push https://example.invalid/x.git main",
    "git push git@example.invalid:x.git main",
])
def test_a_push_to_a_remote_or_a_path_the_write_rules_open_stays_allowed(setup: Setup, repository: Path,
                                                                          line: str) -> None:
    _rules(setup, GIT_AND_OUT)
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "naming"), [
    ("git remote-ext origin 'touch PWNED'", "git remote-ext **"),  # (runs touch PWNED: git 2.39, bash and dash)
    ("git merge-index touch src/a.txt", "git merge-index **"),  # (runs touch for an unmerged src/a.txt)
    ("git bugreport -o out", "git bugreport -o **"),  # (then opens the editor on its report)
    ("git submodule--helper foreach 'touch PWNED'", "git submodule--helper **"),
    ("git bisect--helper run", "git bisect--helper **"),
    ("git remote-fd 0", "git remote-fd **"),
])
def test_a_subcommand_that_runs_a_program_is_covered_only_by_a_rule_naming_it(setup: Setup, repository: Path,
                                                                              line: str, naming: str) -> None:
    _rules(setup, GIT_AND_OUT)
    assert _verdict(setup, line) is not Effect.ALLOW
    _rules(setup, GIT_AND_OUT + rule_text(naming))
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "writes"), [
    (("git", "merge-resolve", "HEAD", "--", "HEAD", "x"), True),
    (("git", "quiltimport"), True),
    (("git", "no-such-builtin"), True),
    (("git", "merge-base", "a", "b"), False),
    (("git", "format-patch", "HEAD~1"), False),  # (its files: git_file_writes)
    (("git", "apply", "p"), False),  # (the patch names them: git_folder_writes)
])
def test_the_subcommands_counted_as_writing_the_worktree(line: tuple[str | None, ...], writes: bool) -> None:
    assert updates_worktree(line) is writes


@pytest.mark.parametrize(("line", "found"), [
    (("git", "format-patch", "HEAD~1"), Written(below=("./.",))),
    (("git", "-C", "src", "format-patch", "HEAD~1"), Written(below=("src/.",))),
    (("git", "format-patch", "--stdout", "HEAD~1"), Written()),
    (("git", "format-patch", "--std", "HEAD~1"), Written()),  # (a prefix git takes)
    (("git", "format-patch", "--output-dir=x", "HEAD~1"), Written()),  # (the value is judged as an option's)
    (("git", "format-patch", "-ko", "x", "HEAD~1"), Written()),
    (("git", "format-patch", "-v2o", "HEAD~1"), Written(below=("./.",))),  # (-v takes the rest: reroll "2o")
    (("git", "format-patch", None), Written(below=(None,))),
    (("git", "bugreport", "-s", "x"), Written(below=("./.",))),
    (("git", "unpack-file", "HEAD:a"), Written(below=("./.",))),
    (("git", "pack-objects", "out/x"), Written(below=("./out",))),
    (("git", "pack-objects", "--stdout"), Written()),
    (("git", "credential-store", "get"), Written()),
    (("git", "credential-store", "store"), Written(files=("~/.git-credentials", "~/.config/git/credentials"))),
    (("git", "credential-store", "--file", "f", "store"), Written()),
    (("git", "credential-cache", "--socket=s", "store"), Written()),
    (("git", "maintenance", "run"), Written()),
    (("git", "log"), Written()),
    (("git", "push", "../r.git", "main"), Written(below=("./../r.git",))),
    (("git", "push", "-o", "../x", "origin"), Written()),  # (-o's value is not the repository)
    (("git", "push", "--receive-pack", "x", "file:///r"), Written(below=("/r",))),
    (("git", "push", "host:r.git"), Written()),  # (ssh)
    (("git", "push", "."), Written()),  # (the repository itself)
    (("git", "push", "origin", None), Written()),  # (a refspec only known when it runs)
    (("git", "push", None, "main"), Written(below=(None,))),
    (("git", "rm", "out/a"), Written()),  # (a plain path: judged as the word it is)
    (("git", "rm", "out/d/*.env"), Written(below=("./out/d",))),
    (("git", "rm", "-rf", "*.env"), Written(below=("./.",))),
    (("git", "rm", "--cached", "*.env"), Written()),
    (("git", "rm", "-n", "*.env"), Written()),
    (("git", "rm", "--pathspec-from-file=f"), Written(below=(None,), removed=(None,))),
    (("git", "rm", ":/x"), Written(below=(None,))),
    # s316: with -r a plain pathspec is a folder removed whole, each source of mv one moved away
    # (s320: landing below the destination).
    (("git", "rm", "-r", "out/d"), Written(removed=("./out/d",))),
    (("git", "rm", "-rf", "out/d", "out/e/*"), Written(below=("./out/e",), removed=("./out/d",))),
    (("git", "-C", "src", "rm", "-r", "d"), Written(removed=("src/d",))),
    (("git", "rm", "-r", "--cached", "out/d"), Written()),
    (("git", "rm", "-r", None), Written(below=(None,), removed=(None,))),
    (("git", "mv", "out/d", "out/e"), Written(removed=("./out/d",), landed=(("./out/d", "./out/e"),))),
    (("git", "mv", "-k", "a", "b", "dest/"), Written(removed=("./a", "./b"), landed=(("./a", "./dest/"), ("./b", "./dest/")))),
    (("git", "mv", "--", "-a", "b"), Written(removed=("./-a",), landed=(("./-a", "./b"),))),
    (("git", "-C", "src", "mv", "d", "e"), Written(removed=("src/d",), landed=(("src/d", "src/e"),))),
    (("git", "mv", "-n", "a", "b"), Written()),
    (("git", "mv", "--dry", "a", "b"), Written()),  # (a prefix git takes)
    (("git", "mv", "--frobnicate", "a", "b"), Written(removed=(None,), landed=((None, None),))),
])
def test_what_each_form_writes(line: tuple[str | None, ...], found: Written) -> None:
    at = 3 if line[1] == "-C" else 1
    assert written(line, at) == found


@pytest.mark.parametrize("action", ["register", "unregister", "start", "stop"])
def test_maintenance_writes_the_persons_git_settings(action: str) -> None:
    files = written(("git", "maintenance", action), 1).files
    assert {"~/.gitconfig", "~/.config/git/config"} <= set(files)
    assert (None in files) is (action in ("start", "stop"))  # (a systemd timer or a crontab entry)
