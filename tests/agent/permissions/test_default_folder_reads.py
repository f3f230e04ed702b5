"""s275: a program that reads below the folder it runs in when the line names no folder (``grep
-r KEY``, ``rg KEY``, ``find -name x``, ``ls -R``, ``tree``, ``du -a``) is judged as if the line
named ``.``: a read deny below that folder asks, as it does for ``grep -r KEY .``. ``grep -r
KEY`` printed ``src/main.py:KEY=secret`` past a read deny on ``@workspace/src/**`` (bash and
dash, strace showed src/main.py opened). Where the line names what it reads, or the program
does not read recursively, nothing changes."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

READERS = "[grep|rg|ag|ack|fd|find|ls|tree|du|cd|git grep|git ls-files|timeout|ruff check|ruff format|ctags] **"
DENIED = rule_text(READERS) + rule_text("@workspace/src/**", effect="deny", tool="read")
NO_DENY = rule_text(READERS)


@pytest.mark.parametrize("line", [
    "grep -r KEY", "grep -R KEY", "grep --recursive KEY", "grep -rn KEY", "grep -d recurse KEY",
    "grep --directories=recurse KEY", "grep -r -e KEY", "grep -rf patterns.txt", "grep -r KEY .",
    "rg KEY", "rg -e KEY", "rg --files", "rg -n -- KEY",
    "ag KEY", "ack KEY", "fd main", "fd",
    "find -name main.py", "find", "find -L -type f",
    "ls -R", "ls -aR", "ls --recursive", "ls -R -I x",
    "tree", "tree -a", "tree -L 3",
    "du -a", "du",
    "cd src && grep -r KEY",  # the working folder a cd leads to
    "cd out && cd .. && grep -r KEY",
    "cd out && rg KEY ..",
    # the names a line gives are judged from every folder it may be in, `.` as much as any
    # (as `cd out && grep -r KEY .` already was)
    "cd out && grep -r KEY",
    "git grep KEY", "git grep -n KEY -- '*.py'", "git ls-files", "git -C . grep KEY",
    "timeout 5 grep -r KEY", "/usr/bin/grep -r KEY",
    "ruff check", "ruff check --select ALL", "ruff format --check", "ctags -R", "ctags -R -f -", "ctags --recurse",
])
def test_reading_below_the_working_folder_past_a_read_deny_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "grep -r KEY out", "grep -r -e KEY out", "grep KEY a.txt", "grep KEY",  # (grep KEY reads its input)
    "rg KEY out", "rg -e KEY out", "rg --files out", "find out -name x", "ls", "ls -la", "ls -R out",
    "tree out", "du -a out", "du -d 1 out", "ls -I x out", "ruff check --select ALL out", "ctags -R -f - out",
])
def test_what_the_line_names_outside_the_deny_stays_allowed(setup: Setup, line: str) -> None:
    (setup.workspace / "a.txt").write_text("KEY\n", encoding="utf-8")
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["grep -r KEY", "rg KEY", "find -name x", "ls -R", "tree", "du -a", "fd x",
                                  "git grep KEY", "ls", "ruff check", "ctags -R"])
def test_without_a_deny_below_the_working_folder_it_stays_allowed(setup: Setup, line: str) -> None:
    assert effect_under(setup, NO_DENY, line) is Effect.ALLOW
