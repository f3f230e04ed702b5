"""A ``~`` the shell leaves (quoted or escaped at the start of a word) reaches the program as the
character: a redirection, ``mkdir``, ``cp`` and git (2.39, tried for real) write a folder named
``~`` where the line runs, while hg expands it to the home folder. The engine read every such
word as the home folder: under a rule letting the agent write ``~/scratch/**`` only,
``printf … > '~/scratch/t/conftest.py'`` planted a conftest.py in the workspace that the next
pytest runs. Such a path is judged both ways."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.literal_tilde import LiteralTildes, left_by_shell
from echo_desk.agent.permissions.shell import Word

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

SHELL = _rules("[mkdir|printf|touch|cp|git|hg|pytest|cat] **")


@pytest.mark.parametrize("line", [
    "mkdir -p '~/scratch/t' && printf 'import os' > '~/scratch/t/conftest.py' && pytest -q",
    'printf x > "~/scratch/conftest.py"',
    "touch \\~/scratch/conftest.py",
    "touch '~'/scratch/conftest.py",
    "cp src/a.py '~/scratch/conftest.py'",
    "mkdir -p '~/scratch/t' && cp src/a.py '~/scratch/t'",  # (into the folder: ~/scratch/t/a.py)
    "cp -r src '~/scratch/d'",
    "git init '~/scratch/r'",
    "git clone . '~/scratch/r'",
])
def test_a_tilde_the_shell_leaves_is_not_only_the_home_folder(setup: Setup, line: str) -> None:
    setup.write_user_rules(SHELL + _rules("~/scratch/**", tool="write"))
    assert not setup.engine.load().errors
    assert _effect(setup, line) is None


@pytest.mark.parametrize("line", [
    "mkdir -p ~/scratch/t && printf 'import os' > ~/scratch/t/conftest.py",
    "cp src/a.py ~/scratch/conftest.py",
])
def test_a_tilde_the_shell_expands_is_the_home_folder(setup: Setup, line: str) -> None:
    setup.write_user_rules(SHELL + _rules("~/scratch/**", tool="write"))
    assert not setup.engine.load().errors
    assert _effect(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "mkdir -p '~/scratch/t'", "printf x > '~/scratch/x'", "cp src/a.py \\~/scratch/x", "cp -r src '~/scratch/d'",
])
def test_with_both_places_writable_a_quoted_tilde_is_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(SHELL + _rules("~/scratch/**", "@workspace/**", tool="write"))
    assert not setup.engine.load().errors
    assert _effect(setup, line) is Effect.ALLOW


def test_a_quoted_tilde_to_a_denied_file_is_not_allowed(setup: Setup) -> None:
    """hg expands a ``~`` itself: a read deny of the home folder's file still speaks."""
    setup.write_user_rules(SHELL + _rules("~/.ssh/**", tool="read", effect="deny"))
    assert not setup.engine.load().errors
    assert _effect(setup, "cat '~/.ssh/id_rsa'") is not Effect.ALLOW
    assert _effect(setup, "cat '~/notes.txt'") is Effect.ALLOW


def test_which_words_the_shell_leaves_and_the_paths_they_start() -> None:
    assert [left_by_shell(Word(v, r)) for v, r in [("~/x", "'~/x'"), ("~", '"~"'), ("~/x", "\\~/x"),
                                                   ("~/x", "'~'/x"), ("~/x", "~/x"), ("~/a b", "~/'a b'"),
                                                   ("a~", "'a~'"), ("~x", "'~x'")]] == [
        True, True, True, True, False, False, False, False]
    tildes = LiteralTildes()
    tildes.note((Word("cp", "cp"), Word("a", "a"), Word("~/d", "'~/d'")))
    assert tildes.spellings("~/d/a") == ["~/d/a", "./~/d/a"]
    assert tildes.spellings("~/d") == ["~/d", "./~/d"]
    assert tildes.spellings("~/dx") == ["~/dx"] and tildes.spellings("out/x") == ["out/x"]


# s201: no shell expands a `~` inside a word. Glued to an option (`install -D -t~/scratch/t F`)
# it reached install as it is, which made ./~/scratch/t/F in the workspace under bash and dash
# (strace); the engine read the folder as the home folder's. bash expands one after `=` or `:`
# only in a word starting `NAME=`, dash never: those words stay not known to the line parser.
@pytest.mark.parametrize("line", [
    "install -D -t~/scratch/t src/a.py",
    "install -Dt~/scratch/t src/a.py",
    "mkdir -p ~/scratch/t && install -t~/scratch/t src/a.py",
    "install --target-directory=~/scratch/t src/a.py",  # (not read: a tilde after '=')
    "install -t ~/scratch/t x=~/y",  # (bash expands that one, dash does not)
])
def test_a_tilde_inside_a_word_is_not_only_the_home_folder(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("[install|mkdir] **") + _rules("~/scratch/**", tool="write"))
    assert not setup.engine.load().errors
    assert _effect(setup, line) is not Effect.ALLOW


def test_a_tilde_inside_a_word_is_allowed_where_both_places_are_writable(setup: Setup) -> None:
    setup.write_user_rules(_rules("[install|mkdir] **") + _rules("~/scratch/**", "@workspace/**", tool="write"))
    assert not setup.engine.load().errors
    assert _effect(setup, "install -D -t~/scratch/t src/a.py") is Effect.ALLOW
    assert _effect(setup, "install -D -t ~/scratch/t src/a.py") is Effect.ALLOW


def test_the_parts_of_a_word_from_a_tilde_inside_it() -> None:
    tildes = LiteralTildes()
    tildes.note((Word("install", "install"), Word("-t~/d", "-t~/d"), Word("a~b", "a~b"), Word("~/h", "~/h")))
    assert tildes.spellings("~/d/a") == ["~/d/a", "./~/d/a"]
    assert tildes.spellings("~/h") == ["~/h"]  # (the shell expanded that one)
    assert tildes.spellings("~b") == ["~b"]
