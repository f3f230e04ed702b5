"""s250: a program that writes anywhere below a folder (``unzip -d``, ``tar -x -C``, ``pip install
--target``) asks where a deny or ask write rule may match a file below that folder, also a glob
whose starting folder lies above it: with ``@workspace/**/.github/**`` write-denied and the
agent's writes kept to out/, ``unzip -q a.zip -d out/u`` wrote ``out/u/.github/workflows/ci.yml``
(the hostile corpus's s250 lines, proven under bash and dash). A rule that cannot match there
(``~/.ssh/**``, ``@workspace/*.env``) leaves the line allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.matchers import compile_path
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import rule_text, writes_allowed

UNPACKERS = rule_text("unzip **", "tar -xf **", "pip install --target **") + writes_allowed("@workspace/out/**")
LINES = ("unzip -q a.zip -d out/u", "tar -xf a.tar -C out/u", "pip install --target out/u a-1.0-py3-none-any.whl")


def _effect(setup: Setup, rules: str, line: str, workspace: Path | None = None) -> Effect | None:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=workspace or setup.workspace).effect


def _asks(effect: Effect | None) -> bool:
    """Whether the line asks: a write rule spoke (``ask``), or no rule covers it (``None``)."""
    return effect in (None, Effect.ASK)


def _refused(pattern: str, effect: str = "deny") -> str:
    return UNPACKERS + rule_text(pattern, effect=effect, tool="write")


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("pattern", [
    "@workspace/**/.github/**",  # starts at the workspace, any depth
    "@workspace/**/*.env",
    "@workspace/out/**/*.env",  # starts above out/u, below the workspace
    "@workspace/*/u/*.env",  # no **, but more parts than out/u lies below the workspace
    "@workspace/o*",  # matches out, and so everything in it
])
def test_a_glob_starting_above_the_folder_makes_the_line_ask(setup: Setup, line: str, pattern: str) -> None:
    assert _effect(setup, UNPACKERS, line) is Effect.ALLOW
    assert _asks(_effect(setup, _refused(pattern), line))


@pytest.mark.parametrize("line", LINES)
def test_an_ask_rule_counts_as_a_deny_does(setup: Setup, line: str) -> None:
    assert _asks(_effect(setup, _refused("@workspace/**/.github/**", effect="ask"), line))


@pytest.mark.parametrize("pattern", ["@workspace/out/u/.github/**", "@workspace/out/u/cfg/.env"])
def test_a_rule_starting_below_the_folder_makes_the_line_ask(setup: Setup, pattern: str) -> None:
    assert _asks(_effect(setup, _refused(pattern), "unzip -q a.zip -d out/u"))


@pytest.mark.parametrize("folder", ["out/../out/u", "./out/u/", "out/v/../u"])
def test_the_folder_is_judged_however_it_is_spelled(setup: Setup, folder: str) -> None:
    assert _asks(_effect(setup, _refused("@workspace/**/.github/**"), f"unzip -q a.zip -d {folder}"))


def test_the_folder_is_judged_where_its_links_lead(setup: Setup) -> None:
    """``out/u`` a link to ``out/real``: a rule starting below where it leads counts."""
    (setup.workspace / "out" / "real").mkdir()
    (setup.workspace / "out" / "u").symlink_to("real")
    assert _asks(_effect(setup, _refused("@workspace/out/real/**"), "unzip -q a.zip -d out/u"))


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("pattern", [
    "~/.ssh/**",  # elsewhere: the workspace is not in the home folder here
    "@workspace/secret/**",  # beside the folder
    "@workspace/*.env",  # above it, but matching only files directly in the workspace
    "@workspace/out/u.env",
    "//etc/**",  # an absolute pattern starts at /etc, not at /
])
def test_a_rule_that_cannot_match_below_the_folder_leaves_the_line_allowed(setup: Setup, line: str,
                                                                            pattern: str) -> None:
    assert _effect(setup, _refused(pattern), line) is Effect.ALLOW


@pytest.mark.parametrize(("pattern", "asks"), [
    ("~/**/*.pem", True),  # may match anywhere below the home folder, the workspace's out/u too
    ("~/.*", False),  # only the home folder's own dot files
    ("~/.ssh/**", False),
])
def test_a_home_glob_for_a_workspace_in_the_home_folder(setup: Setup, pattern: str, asks: bool) -> None:
    workspace = setup.home / "project"
    (workspace / "out").mkdir(parents=True)
    effect = _effect(setup, _refused(pattern), "unzip -q a.zip -d out/u", workspace=workspace)
    assert _asks(effect) if asks else effect is Effect.ALLOW


def test_a_git_folder_in_an_archive_is_not_git_s_own(setup: Setup) -> None:
    """git's worktree updates put no file in ``.git`` (a rule only there does not make them ask);
    an archive may hold ``.git/hooks/pre-commit``, which unzip writes there."""
    assert _asks(_effect(setup, _refused("@workspace/out/u/.git/**"), "unzip -q a.zip -d out/u"))


def test_an_absolute_pattern_starts_at_its_own_folders() -> None:
    kwargs = {"workspaces": (Path("/w"),), "home": Path("/h")}
    assert compile_path("//etc/**").bases(**kwargs) == [Path("/etc")]
    assert compile_path("//etc/passwd").bases(**kwargs) == [Path("/etc/passwd")]
    assert compile_path("@workspace/**/*.env").bases(**kwargs) == [Path("/w")]
    assert compile_path("//etc/**").glob_parts() == ["**"]
    assert compile_path("~/.ssh/id_rsa").glob_parts() == []


@pytest.mark.parametrize(("pattern", "asks"), [("//etc/**", False), ("//**/*.env", True)])
def test_git_s_worktree_updates_are_judged_the_same_way(setup: Setup, pattern: str, asks: bool) -> None:
    """One check for both: an absolute pattern starts at its own folders (``//etc/**`` at /etc,
    not at /, which is above every worktree), and ``//**/*.env`` may match below any."""
    (setup.workspace / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "add", "-A")
    git_in(setup.workspace, "commit", "-q", "-m", "x")
    git_in(setup.workspace, "branch", "other")
    rules = rule_text("git **") + writes_allowed("@workspace/out/**") + rule_text(pattern, effect="deny", tool="write")
    effect = _effect(setup, rules, "git checkout other")
    assert _asks(effect) if asks else effect is Effect.ALLOW


#: s260: the line making the folder first, with the rules of UNPACKERS and ``mkdir **``.
MADE_FIRST = UNPACKERS + rule_text("mkdir **")


@pytest.mark.parametrize("make", ["mkdir out/t", "mkdir -p out/t"])
@pytest.mark.parametrize("line", [*(line.replace("out/u", "out/t") for line in LINES),
                                  "python -m pip install --target out/t a-1.0-py3-none-any.whl"])
def test_a_folder_the_line_makes_first_stays_a_folder(setup: Setup, make: str, line: str) -> None:
    """tar, unzip and pip make the folder they write below a folder (tar refuses a member ``.``
    that is a link, unzip renames it ``_``), so ``mkdir out/t`` writes no path through a link
    ``unzip -d out/t`` may make: the line writes what it does with out/t already there (s260)."""
    rules = MADE_FIRST + rule_text("python -m pip install --target **")
    assert _effect(setup, rules, f"{make} && {line}") is Effect.ALLOW
    assert _effect(setup, rules, f"{line}; {make}") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "mkdir out/t && unzip -q a.zip -d out/t && mkdir out/t/sub",  # a member `sub` may be a link
    "ln -s ~ out/t && unzip -q a.zip -d out/t",  # the folder itself a link the line makes
    "mkdir out/t && cp -a a out/t",  # cp carries a link over: out/t may become one
])
def test_what_an_unpacker_may_link_below_the_folder_still_asks(setup: Setup, line: str) -> None:
    rules = MADE_FIRST + rule_text("ln **", "cp **")
    assert _asks(_effect(setup, rules, line))


@pytest.mark.parametrize("line", ["mkdir out/t && unzip -q a.zip -d out/t", "mkdir out/t && tar -xf a.tar -C out/t"])
def test_a_deny_below_a_folder_the_line_makes_still_asks(setup: Setup, line: str) -> None:
    assert _effect(setup, MADE_FIRST, line) is Effect.ALLOW
    assert _asks(_effect(setup, MADE_FIRST + rule_text("@workspace/**/.env", effect="deny", tool="write"), line))


@pytest.mark.parametrize("tar", ["bsdtar", "gtar"])
def test_a_folder_bsdtar_or_gtar_unpacks_into_stays_a_folder(setup: Setup, tar: str) -> None:
    """bsdtar (libarchive 3.6.2) refuses a member ``.`` that is a link as GNU tar does ("Can't
    replace existing directory with non-directory", with ``-U`` "Could not unlink") and skips an
    empty name, under bash and dash; gtar is GNU tar (s270). They asked where tar was allowed."""
    rules = MADE_FIRST + rule_text(f"{tar} -xf **")
    assert _effect(setup, rules, f"mkdir out/t && {tar} -xf a.tar -C out/t") is Effect.ALLOW
    assert _asks(_effect(setup, rules, f"mkdir out/t && {tar} -xf a.tar -C out/t && mkdir out/t/sub"))
    assert _asks(_effect(setup, rules, f"mkdir out/t && {tar} -xf a.tar -P -C out/t"))
