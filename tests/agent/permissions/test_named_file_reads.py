"""s299: a program that reads only the files its words name (``named_files``: cat, head, tail,
wc, md5sum, grep without ``-r``…) is judged by what a glob matches as files, not as folders
read through: ``wc -l ./*`` beside a read deny on ``@workspace/src/**`` matches src, yet wc,
cat, head, tail, md5sum and grep opened nothing below src/ ("Is a directory": strace, coreutils
9.1, grep 3.8, bash and dash). A glob matching a denied file, a recursive option (``grep -r``,
``du``, ``cp -r``) or a word that may be one still asks."""

from __future__ import annotations

import os

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

READERS = "[cat|tac|head|tail|wc|nl|md5sum|sha256sum|b2sum|cksum|strings|grep|du|cp|ls] **"
DENIED = rule_text(READERS) + rule_text("@workspace/src/**", effect="deny", tool="read")


def _workspace(setup: Setup) -> None:
    (setup.workspace / "src" / "main.py").write_text("KEY=secret\n", encoding="utf-8")
    (setup.workspace / "a.txt").write_text("KEY=x\n", encoding="utf-8")
    (setup.workspace / "out" / "b.txt").write_text("y\n", encoding="utf-8")


@pytest.mark.parametrize("line", [
    "cat ./*", "tac ./*", "wc -l ./*", "head ./*", "tail -n 3 ./*", "nl ./*", "md5sum ./*", "sha256sum ./*",
    "b2sum ./*", "cksum ./*", "strings ./*", "grep KEY ./*", "grep -n KEY ./*", "grep -e KEY -- ./*",
    "cat ./o*", "wc -l ./* ./.*",
])
def test_a_glob_matching_a_denied_folder_is_fine_for_a_reader_of_named_files(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cat ./src/*", "cat ./*/*", "wc -l ./s*/m*", "cat src/main.py", "head ./src/main.py",  # the denied file itself
    "grep -r KEY ./*", "grep -R KEY ./*", "grep -rn KEY ./*", "grep -d recurse KEY ./*",
    "grep --directories=recurse KEY ./*", "grep --recursive KEY ./*",  # a recursive option
    "grep --no-such-option KEY ./*", "grep $X KEY ./*",  # (may be one)
    "du ./*", "cp -r ./* out", "ls ./*",  # (not readers of named files)
    "md5sum -c ./*", "wc --files0-from=a.txt ./*",  # (the names they read are elsewhere)
    "cat src", "wc -l src/",  # (a folder named outright: the line asks for what it holds)
])
def test_its_neighbour_reading_the_denied_file_asks(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


def test_a_match_that_is_a_link_to_a_denied_file_asks(setup: Setup) -> None:
    _workspace(setup)
    os.symlink(setup.workspace / "src" / "main.py", setup.workspace / "out" / "link.py")
    assert effect_under(setup, DENIED, "cat ./out/*") is not Effect.ALLOW
    os.symlink(setup.workspace / "src", setup.workspace / "out" / "folder")
    os.unlink(setup.workspace / "out" / "link.py")
    assert effect_under(setup, DENIED, "cat ./out/*") is Effect.ALLOW  # (cat: Is a directory)


@pytest.mark.parametrize(("denied", "line"), [
    ("@workspace/*.txt", "cat ./*"),  # a.txt itself
    ("@workspace/*.txt", "cat ./o*"),  # (a file the line may add there would match)
    ("@workspace/src", "cat ./*"),  # the folder itself
    ("@workspace/src/", "wc -l ./*"),
    ("@workspace/**/*.py", "cat ./*"),
])
def test_a_rule_naming_what_the_glob_may_match_still_asks(setup: Setup, denied: str, line: str) -> None:
    _workspace(setup)
    rules = rule_text(READERS) + rule_text(denied, effect="deny", tool="read")
    assert effect_under(setup, rules, line) is not Effect.ALLOW


#: s302: a bare ``*`` may expand to an option (a file named ``-r`` makes ``grep KEY *`` recurse
#: through a link given as an operand: hostile corpus), so it asks; after a ``--`` that follows
#: only flags taking no value, every match is a file to read (``wc -l -- *`` with files named
#: ``--files0-from=l`` and ``-n`` counted them: strace, coreutils 9.1, grep 3.8, bash and dash).
@pytest.mark.parametrize("line", [
    "cat -- *", "wc -l -- *", "head -- *", "tail -q -- *", "grep -n -- KEY *", "grep -- KEY *", "md5sum -- *",
    "cat -n -- * ./*", "tac -- *", "sha256sum -- *",
])
def test_a_bare_glob_after_double_dash_is_read_as_files(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cat *", "wc -l *", "head *", "grep KEY *",  # (no `--`: a match may be an option)
    "cat * --", "head -n -- *", "grep -e -- KEY *",  # (before it; or an option's value)
    "tail -f -- *", "wc --lines -- *", "cat -- */*",  # (an option not read here; a match below a folder)
    "grep -r -- KEY *", "md5sum -c -- *", "nl -- *",  # (recursive; names read from the files; not listed)
])
def test_its_neighbours_still_ask(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


#: s310: head, tail and grep read the words before the ``--`` by their option tables
#: (``program_options``: coreutils 9.1, grep 3.8), values and long-option prefixes included, so
#: an option taking a value may stand there: the ``--`` after it ends the options, every match is
#: a file (strace, bash and dash, with files named ``-r``, ``-n``, ``--files0-from=l`` planted).
@pytest.mark.parametrize("line", [
    "head -n 3 -- *", "head -n3 -- *", "head --lines=3 -- *", "head --lines 3 -- *", "head --li 3 -- *",
    "head -c 100 -qv -- *", "tail -n +2 -- *", "tail -n +2 -- *.txt", "tail --bytes=-5 -z -- *",
    "grep -n -e TODO -- *", "grep -i --color=never -- KEY *", "grep --colo=never -e KEY -e x -- *",
    "grep -m 1 -A 2 -B1 -C 3 -- KEY *", "grep --include='*.py' -e KEY -- *", "grep -d skip -- KEY *",
    "grep -D skip --exclude='*.log' --label=x -- KEY *", "grep --group-separator=-- -e KEY -- *",
])
def test_an_option_taking_a_value_before_double_dash(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "head -n -- *", "head --lines -- *", "grep -e -- KEY *", "grep -f -- KEY *",  # (the -- is the value)
    "head -5 -- *", "head -3c -- *", "grep -n5 -- KEY *", "head --nope=3 -- *", "tail ---presume-input-pipe -- *",
    "tail --s 1 -- *",  # (not in the table; ambiguous: --silent, --sleep-interval)
    "tail -f -- *", "tail -F -- *", "tail --follow=name -- *", "tail --retry -- *", "tail --pid 1 -f -- *",
    "head -n $N -- *", "head $OPT -- *", "grep -e KEY a.txt -- *",  # (known when it runs; an operand before)
    "grep -f src/main.py -- *", "grep -fsrc/main.py -- *", "grep --file=src/main.py -- *",  # (reads the denied file)
    "grep --fi src/main.py -- *", "grep --exclude-from=src/main.py -- KEY *", "grep --exclude-f=src/main.py -- KEY *",
    "grep -r -- KEY *", "grep -R -- KEY *", "grep --deref -- KEY *", "grep --rec -- KEY *",  # (recursive)
    "grep -d recurse -- KEY *", "grep -drec -- KEY *", "grep --dir=recurse -- KEY *", "grep --directories rec -- KEY *",
])
def test_its_neighbours_with_values_still_ask(setup: Setup, line: str) -> None:
    _workspace(setup)
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW
