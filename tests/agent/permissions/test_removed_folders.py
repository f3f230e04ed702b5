"""s311: a command that removes or moves away a whole folder (``rm -r``, ``find … -delete``, ``mv``)
writes every path below it, so a deny or ask write rule that may match a path below the folder
asks, not only one its word matches: with writes allowed in the workspace and
``@workspace/**/*.env`` denied, ``rm -r out/d`` deleted out/d/x.env (the hostile corpus's s311
lines, proven under bash and dash). Judged by the rules' patterns, not by what the folder holds:
the line may put the file there first. A rule that cannot match below the folder, and a path
that is a plain file now, leave the line allowed."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

FILE_PROGRAMS: str = rule_text("rm **", "mv **", "find **", "mkdir **") + writes_allowed("@workspace/**")
REMOVALS = (
    "rm -r out/d", "rm -rf out/d", "rm -R out/d/", "rm --recursive out/d", "rm -r out/x/../d",
    "mv out/d gone", "mv out/d out/e", "mv -t src out/d", "mv -T out/d src/d", "mv --target-directory=src out/d",
)
#: Recursive deletes the rules above do not allow as they stand (``find -delete`` writes what it
#: finds; after a ``cd``, from every folder the line may be in: ``find -delete`` there is denied, the
#: workspace itself one of them): guards that they stay refused.
ASKING = ("find out/d -delete", "cd out/d && find -delete", "cd src && rm -r ../out/d")


def _refused(pattern: str, effect: str = "deny") -> str:
    return f'{FILE_PROGRAMS}{rule_text(pattern, effect=effect, tool="write")}'


def _asks(effect: Effect | None) -> bool:
    """Whether the line asks: a write rule spoke (``ask``), or no rule covers it (``None``)."""
    return effect in (None, Effect.ASK)


@pytest.fixture
def folder(setup: Setup) -> Setup:
    """out/d, holding a file a write rule below may be about (none needs to be there)."""
    (setup.workspace / "out" / "d").mkdir()
    (setup.workspace / "out" / "d" / "x.txt").write_text("x\n")
    return setup


@pytest.mark.parametrize("line", REMOVALS)
@pytest.mark.parametrize("pattern", [
    "@workspace/**/*.env",  # a file name anywhere: no folder word of the line matches it
    "@workspace/out/**/*.env",
    "@workspace/*/d/*.env",  # no **, but more parts than out/d lies below the workspace
    "@workspace/out/d/keep/**",  # starts below the folder
])
def test_a_write_rule_that_may_match_below_the_folder_makes_the_line_ask(folder: Setup, line: str,
                                                                        pattern: str) -> None:
    assert effect_under(folder, FILE_PROGRAMS, line) is Effect.ALLOW
    assert _asks(effect_under(folder, _refused(pattern), line))


@pytest.mark.parametrize("line", ASKING)
def test_the_other_recursive_deletes_stay_refused(folder: Setup, line: str) -> None:
    assert effect_under(folder, _refused("@workspace/**/*.env"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["rm -r out/d", "mv out/d gone"])
def test_an_ask_rule_counts_as_a_deny_does(folder: Setup, line: str) -> None:
    assert _asks(effect_under(folder, _refused("@workspace/**/.git/**", effect="ask"), line))


@pytest.mark.parametrize("line", ["rm -r out/d", "mv out/d gone", "rm -rf build", "mv out/a out/b"])
@pytest.mark.parametrize("pattern", ["~/.ssh/**", "@workspace/*.env", "@workspace/.git/**", "@workspace/src/**"])
def test_a_rule_that_cannot_match_below_the_folder_leaves_it_allowed(folder: Setup, line: str, pattern: str) -> None:
    assert effect_under(folder, _refused(pattern), line) is Effect.ALLOW


def test_a_plain_file_moved_or_removed_holds_nothing_below(setup: Setup) -> None:
    (setup.workspace / "a.txt").write_text("a\n")
    rules = _refused("@workspace/**/*.env")
    assert effect_under(setup, rules, "mv a.txt b.txt") is Effect.ALLOW
    assert effect_under(setup, rules, "rm -rf a.txt") is Effect.ALLOW
    # … unless the line makes it something else first (a folder it may fill).
    assert _asks(effect_under(setup, rules, "rm a.txt && mkdir a.txt && mv a.txt b"))


def test_a_folder_only_known_when_the_line_runs_asks(folder: Setup) -> None:
    rules = _refused("@workspace/**/*.env")
    for line in ('mv "$D" gone', 'cd "$D" && rm -r x'):
        assert _asks(effect_under(folder, rules, line)), line


#: s316: git removes or moves a folder whole too: with writes allowed in the workspace and
#: ``@workspace/**/*.env`` denied, ``git rm -r d`` deleted the tracked d/x.env and ``git mv d e``
#: (``-k`` too) moved it to e/x.env (git 2.39, bash and dash, strace).
#: (Writes kept to out/ and src/: with the whole workspace open git's own settings would be
#: the agent's to write. ``git **`` covers no option of rm and mv: a person names them.)
GIT_RULES: str = rule_text(
    "git **", "git rm -r **", "git rm -rq **", "git rm -r -f **", "git mv -k **", "git mv -f -v **",
    "git rm -r --cached **", "git rm -r -n **", "git rm -r --dry-run **", "git mv -n **", "git mv --dry-run **",
) + writes_allowed("@workspace/out/**", "@workspace/src/**")
GIT_REMOVALS = (
    "git rm -r out/d", "git rm -rq out/d", "git rm -r -f -- out/d", "git rm -r out/d/",
    "git mv out/d out/gone", "git mv -k out/d out/gone", "git mv -f -v out/d src/", "git mv out/d src/a.txt src/",
    "git mv -- out/d out/gone", "git mv out/d/ out/gone", "git mv out/d src/a.txt out/e", "git rm -r out/d src/a.txt",
)
#: Lines that leave the folder in place, or name files git does not take whole.
GIT_LEFT = (
    "git rm -r --cached out/d", "git rm -r -n out/d", "git rm -r --dry-run out/d", "git mv -n out/d out/gone",
    "git mv --dry-run out/d out/gone", "git rm src/a.txt", "git rm -r src/a.txt", "git mv src/a.txt src/b.txt",
    "git mv src/a.txt out/d",
)


@pytest.fixture
def repository(folder: Setup) -> Setup:
    """out/d as in ``folder``, beside a plain file src/a.txt, all tracked."""
    (folder.workspace / "src").mkdir(exist_ok=True)
    (folder.workspace / "src" / "a.txt").write_text("a\n")
    git_in(folder.workspace, "init", "-q", "-b", "main")
    git_in(folder.workspace, "add", "-A")
    git_in(folder.workspace, "commit", "-q", "-m", "x")
    return folder


def _git_refused(pattern: str, effect: str = "deny") -> str:
    return f'{GIT_RULES}{rule_text(pattern, effect=effect, tool="write")}'


@pytest.mark.parametrize("line", GIT_REMOVALS)
@pytest.mark.parametrize("pattern", ["@workspace/**/*.env", "@workspace/**/test_*.py", "@workspace/out/d/keep/**"])
def test_git_removing_or_moving_a_folder_whole_asks_beside_a_rule_below_it(repository: Setup, line: str,
                                                                          pattern: str) -> None:
    assert effect_under(repository, GIT_RULES, line) is Effect.ALLOW
    assert _asks(effect_under(repository, _git_refused(pattern), line))


@pytest.mark.parametrize("line", GIT_LEFT)
def test_git_lines_that_leave_the_folder_or_name_a_plain_file_stay_allowed(repository: Setup, line: str) -> None:
    assert effect_under(repository, _git_refused("@workspace/**/*.env"), line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["git rm -r out/d", "git mv out/d out/gone"])
@pytest.mark.parametrize("pattern", ["~/.ssh/**", "@workspace/*.env", "@workspace/src/**"])
def test_a_rule_that_cannot_match_below_what_git_takes_leaves_it_allowed(repository: Setup, line: str,
                                                                        pattern: str) -> None:
    assert effect_under(repository, _git_refused(pattern), line) is Effect.ALLOW


@pytest.mark.parametrize("line", ['git rm -r "$D"', 'git mv "$D" out/gone', "git mv --frobnicate out/d out/gone",
                                  "git rm -r --pathspec-from-file=list"])
def test_git_taking_a_folder_not_known_here_asks(repository: Setup, line: str) -> None:
    assert _asks(effect_under(repository, _git_refused("@workspace/**/*.env"), line))


#: s320: where a folder moved whole lands is written too, below the destination: with writes
#: allowed and ``@workspace/prod/*.env`` denied, ``mv out/d prod`` and ``git mv out/d prod`` (prod
#: not there) put out/d/x.env at prod/x.env, no word of the line naming it (coreutils 9.1, git
#: 2.39, bash and dash, strace). Judged as a folder written anywhere below the destination, both
#: readings at once: it becomes the destination, or lands in it.
LANDING_RULES: str = rule_text("mv **", "git **", "git mv -k **", "mkdir **") + writes_allowed(
    "@workspace/out/**", "@workspace/src/**", "@workspace/prod", "@workspace/prod/**")
LANDINGS = (
    "mv out/d prod", "mv -T out/d prod", "mv out/d/ prod", "mv -f out/d prod", "mv out/d src/a.txt prod",
    "git mv out/d prod", "git mv -k -- out/d/ prod",
)
#: Plain files moved, and folders moved where no refusing rule reaches: judged by their words.
LANDINGS_LEFT = (
    "mv src/a.txt prod", "mv src/a.txt prod/b.txt", "git mv src/a.txt prod", "mv out/d out/e", "git mv out/d out/e",
    "mv out/d src/e",
)


def _landing_refused(pattern: str) -> str:
    return f'{LANDING_RULES}{rule_text(pattern, effect="deny", tool="write")}'


@pytest.mark.parametrize("line", LANDINGS)
@pytest.mark.parametrize("pattern", ["@workspace/prod/*.env", "@workspace/prod/**/secrets/**", "@workspace/prod/d/*"])
def test_a_folder_moved_whole_is_judged_below_where_it_lands(repository: Setup, line: str, pattern: str) -> None:
    assert effect_under(repository, LANDING_RULES, line) is Effect.ALLOW
    assert _asks(effect_under(repository, _landing_refused(pattern), line))


@pytest.mark.parametrize("line", ["mv -t prod out/d", "mv --target-directory=prod out/d"])
def test_a_folder_moved_into_a_target_folder_lands_in_it_under_its_name(repository: Setup, line: str) -> None:
    # (-t: the destination is a folder the source lands in, never one it becomes)
    assert effect_under(repository, _landing_refused("@workspace/prod/*.env"), line) is Effect.ALLOW
    assert _asks(effect_under(repository, _landing_refused("@workspace/prod/d/*"), line))


@pytest.mark.parametrize("line", LANDINGS_LEFT)
def test_a_plain_file_moved_or_a_landing_no_rule_reaches_stays_allowed(repository: Setup, line: str) -> None:
    assert effect_under(repository, _landing_refused("@workspace/prod/*.env"), line) is Effect.ALLOW


@pytest.mark.parametrize("line", ['mv out/d "$D"', 'git mv out/d "$D"', 'mv -t "$D" out/d', 'mv "$D" prod'])
def test_a_landing_only_known_when_the_line_runs_asks(repository: Setup, line: str) -> None:
    assert _asks(effect_under(repository, _landing_refused("@workspace/prod/*.env"), line))

