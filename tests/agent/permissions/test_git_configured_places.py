"""s325: the places git writes and reads because its settings say so are judged by the rules. Under
``git **`` with the agent's writes kept to ``out/``, git 2.39 (bash and dash, strace) wrote
outside them from lines that name no place: ``git push origin main`` created
``../remote.git/refs/heads/main`` with ``remote.origin.url = ../remote.git`` (and with a network
``url`` beside ``pushurl = ../other.git``, or a ``pushInsteadOf`` rewriting it), and ``git
format-patch -1`` created ``../pwned/0001-init.patch`` with ``format.outputDirectory = ../pwned``.
With ``remote.sec.url = ../secret.git``, ``git fetch sec && git show FETCH_HEAD:key.txt`` printed
that repository's file, which a read deny keeps from the agent. The hostile corpus holds the
push of its world, whose origin is ``../remote.git``."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_configured_places import read, written
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

GIT_AND_OUT = rule_text("git **") + writes_allowed("@workspace/out/**")
#: A person who lets the agent write the workspace but git's own folder and the CI workflows.
WORKSPACE = (rule_text("git **") + writes_allowed("@workspace/**")
             + rule_text("@workspace/.git/**", "@workspace/.github/**", effect="deny", tool="write"))
NAMED_OUTPUT = rule_text("git format-patch [-o|--stdout] **")


@pytest.fixture
def repository(setup: Setup) -> Path:
    (setup.workspace / "a.txt").write_text("a\n", encoding="utf-8")
    (setup.workspace / "out").mkdir(exist_ok=True)
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "add", "a.txt")
    git_in(setup.workspace, "commit", "-q", "-m", "x")
    workspace: Path = setup.workspace
    return workspace


def _config(setup: Setup, *pairs: tuple[str, str]) -> None:
    for key, value in pairs:
        git_in(setup.workspace, "config", key, value)


@pytest.mark.parametrize("settings", [
    (("remote.origin.url", "../remote.git"),),  # (created ../remote.git/refs/heads/main: git 2.39)
    (("remote.origin.url", "https://example.invalid/r.git"), ("remote.origin.pushurl", "../other.git")),
    (("remote.origin.url", "https://example.invalid/r.git"),
     ("url.../other.git.pushInsteadOf", "https://example.invalid/r.git")),
    (("remote.origin.url", "https://example.invalid/r.git"),
     ("url.../other.git.insteadOf", "https://example.invalid/")),
    (("remote.origin.url", "file:///tmp/elsewhere.git"),),
    (("remote.origin.url", "~/r.git"),),  # (receive-pack expands it to the home folder)
    (("remote.origin.url", "/tmp/elsewhere.git"),),
])
@pytest.mark.parametrize("line", ["git push origin main", "git push origin", "git push", "git push --all",
                                  "git push --repo=origin", "git --no-pager push -f origin HEAD:refs/heads/x"])
def test_a_push_to_a_remote_whose_url_is_a_path_is_judged_as_writing_there(
        setup: Setup, repository: Path, settings: tuple[tuple[str, str], ...], line: str) -> None:
    _config(setup, *settings)
    assert effect_under(setup, GIT_AND_OUT, line) is not Effect.ALLOW


def test_a_group_of_remotes_counts_each_of_its_remotes(setup: Setup, repository: Path) -> None:
    _config(setup, ("remote.far.url", "../far.git"), ("remotes.all", "far"))
    assert effect_under(setup, GIT_AND_OUT, "git push all main") is not Effect.ALLOW


def test_the_persons_own_settings_count_too(setup: Setup, repository: Path) -> None:
    (setup.home / ".gitconfig").write_text('[remote "origin"]\n\turl = ../remote.git\n', encoding="utf-8")
    assert effect_under(setup, GIT_AND_OUT, "git push origin main") is not Effect.ALLOW


@pytest.mark.parametrize(("settings", "line"), [
    ((("remote.origin.url", "https://example.invalid/r.git"),), "git push origin main"),
    ((("remote.origin.url", "git@example.invalid:r.git"),), "git push"),
    ((("remote.self.url", "."), ("branch.main.remote", ".")), "git push"),  # (the repository itself)
    ((("remote.origin.url", "../remote.git"),), "git fetch origin"),  # (writes only its own repository)
    ((("remote.origin.url", "../remote.git"),), "git log"),
    ((), "git push origin main"),  # (no such remote: the word is judged as the line gives it)
])
def test_a_push_the_write_rules_open_stays_allowed(setup: Setup, repository: Path,
                                                   settings: tuple[tuple[str, str], ...], line: str) -> None:
    _config(setup, *settings)
    assert effect_under(setup, GIT_AND_OUT, line) is Effect.ALLOW


@pytest.mark.parametrize("value", [".github", ".github/patches", "../pwned", "/tmp/patches"])
def test_the_folder_format_output_directory_names_is_judged_by_the_write_rules(
        setup: Setup, repository: Path, value: str) -> None:
    _config(setup, ("format.outputDirectory", value))
    # (a guard: the folder it runs in is judged too, s301, and asks in these rules already)
    assert effect_under(setup, WORKSPACE, "git format-patch HEAD~1") is not Effect.ALLOW


def test_the_persons_output_directory_counts_too(setup: Setup, repository: Path) -> None:
    (setup.home / ".gitconfig").write_text("[format]\n\toutputDirectory = ~/patches\n", encoding="utf-8")
    # (a guard: the folder it runs in is judged too, s301, and asks in these rules already)
    assert effect_under(setup, WORKSPACE, "git format-patch HEAD~1") is not Effect.ALLOW


@pytest.mark.parametrize(("value", "line"), [
    (None, "git format-patch --stdout HEAD~1"),
    (".github", "git format-patch --stdout HEAD~1"),  # (-o and --stdout win over the setting)
    (".github", "git format-patch -o out HEAD~1"),
])
def test_a_patch_folder_the_write_rules_open_stays_allowed(setup: Setup, repository: Path, value: str | None,
                                                           line: str) -> None:
    if value is not None:
        _config(setup, ("format.outputDirectory", value))
    assert effect_under(setup, WORKSPACE + NAMED_OUTPUT, line) is Effect.ALLOW


def test_what_the_settings_make_a_command_write(setup: Setup, repository: Path) -> None:
    _config(setup, ("remote.origin.url", "../remote.git"), ("format.outputDirectory", "../p"))
    here, above = [repository], repository.parent
    assert written(("git", "push", "origin", "main"), here, setup.home) == [str(above / "remote.git"),
                                                                          str(above / "remote.git.git")]
    assert written(("git", "format-patch", "-1"), here, setup.home) == [str(above / "p")]
    assert written(("git", "format-patch", "--stdout", "-1"), here, setup.home) == []
    assert written(("git", "push", "../x.git"), here, setup.home) == []  # (git_file_writes judges it)
    assert written(("git", "push", None), here, setup.home) == [None]
    assert written(("git", "log"), here, setup.home) == []


def test_settings_not_read_make_the_place_not_known(setup: Setup, repository: Path) -> None:
    with (repository / ".git" / "config").open("ab") as config:
        config.write(b"[remote \"origin\"]\n\turl = ../\xff.git\n")
    assert written(("git", "push"), [repository], setup.home) == [None]


@pytest.fixture
def secret_remote(setup: Setup, repository: Path, tmp_path: Path) -> str:
    """A repository outside the workspace the person keeps from the agent, configured as the
    remote ``sec``; the rules to judge it by."""
    secret = tmp_path / "secret.git"
    git_in(tmp_path, "init", "-q", "--bare", str(secret))
    git_in(repository, "remote", "add", "sec", str(secret))
    rules: str = GIT_AND_OUT + rule_text(f"/{secret}/**", effect="deny", tool="read")
    return rules


@pytest.mark.parametrize("line", [
    "git fetch sec",  # (git-upload-pack read it, and git show FETCH_HEAD:key.txt printed its file)
    "git pull sec main",
    "git ls-remote sec",
    "git fetch",  # (no remote named: every configured one may be it)
    "git --no-pager fetch sec main",
])
def test_a_fetch_from_a_remote_whose_url_is_a_denied_path_is_judged_as_reading_it(
        setup: Setup, repository: Path, secret_remote: str, line: str) -> None:
    assert effect_under(setup, secret_remote, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["git fetch origin", "git log", "git status", "git fetch https://example.invalid/x"])
def test_a_fetch_reaching_no_denied_repository_stays_allowed(setup: Setup, repository: Path, secret_remote: str,
                                                             line: str) -> None:
    git_in(repository, "remote", "add", "origin", "https://example.invalid/r.git")
    assert effect_under(setup, secret_remote, line) is Effect.ALLOW


def test_what_the_settings_make_a_command_read(setup: Setup, repository: Path) -> None:
    _config(setup, ("remote.sec.url", "../secret.git"), ("branch.main.remote", "."))
    here, above = [repository], repository.parent
    found = [str(above / "secret.git"), str(above / "secret.git.git")]
    assert read(("git", "fetch", "sec"), here, setup.home) == found
    assert read(("git", "fetch"), here, setup.home) == found  # (not the repository itself, `.`)
    assert read(("git", "fetch", "../x.git"), here, setup.home) == []  # (the word is judged as it is)
    assert read(("git", "fetch", None), here, setup.home) is None
    assert read(("git", "status"), here, setup.home) == []
