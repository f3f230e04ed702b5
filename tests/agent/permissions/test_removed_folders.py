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
