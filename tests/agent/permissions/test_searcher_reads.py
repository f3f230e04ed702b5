"""s282: ag, ack, fd and exa read with their options' tables (``searcher_options``), and git grep
with the pathspecs after its ``--`` (``git_grep_paths``), so a line whose paths all lie outside
a read deny is judged by them: ``ag KEY out``, ``ack KEY out``, ``fd x out`` and ``git grep KEY
-- out`` opened nothing below src/ (strace, ag 2.2.0, ack 3.6.0, fd 8.6.0, git 2.39, bash and
dash) yet asked beside a read deny on ``@workspace/src/**``, as if they searched ``.``. Their
neighbours that do search ``.`` (no path, a value taken for the pattern, a glob or magic
pathspec, a revision that is a tree below the top) still ask, and the options that run a
command (``ag --pager``, ``ack --pager``, ``fd -x``/``-X``/``-l``) are never covered by ``**``."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

SEARCHERS = "[ag|ack|fd|fdfind|exa|eza|tokei|git grep|rg|grep|du|tree] **"
DENIED = rule_text(SEARCHERS) + rule_text("@workspace/src/**", effect="deny", tool="read")
NO_DENY = rule_text(SEARCHERS)


@pytest.mark.parametrize("line", [
    "ag KEY out", "ag -i KEY out", "ag -A 3 KEY out", "ag --python KEY out", "ag -g main out", "ag KEY out -l",
    "ack KEY out", "ack -i KEY out", "ack --python KEY out", "ack -f out", "ack --match KEY out", "ack -g a out",
    "ack -A 3 KEY out",
    "fd x out", "fdfind x out", "fd -e txt x out", "fd -H -t f x out", "fd --search-path out x", "fd x out -E '*.o'",
    "git grep KEY -- out", "git grep -e KEY -- out", "git grep -n KEY -- out a.txt", "git grep -i -e KEY -- out",
    "exa -R out", "exa -T out", "exa", "exa -l",
    "rg KEY out -g '*.py'", "grep -r KEY out --include='*.py'", "du -sh out", "du -d 1 out", "tree -a out",
])
def test_a_search_naming_only_paths_outside_the_deny_is_allowed(setup: Setup, line: str) -> None:
    (setup.workspace / "out").mkdir(exist_ok=True)
    (setup.workspace / "a.txt").write_text("KEY\n", encoding="utf-8")
    assert effect_under(setup, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "ag KEY", "ag -A 3 out",  # (3 is -A's: out is the pattern, . is searched)
    "ag -g main", "ag KEY src", "ag --python out",
    "ack KEY", "ack -f", "ack -g main", "ack --match KEY", "ack -C 3 out",  # (-C takes 3: it searched . for out)
    "ack --context=3 KEY out", "ack -p 2 KEY out",  # (optional values: not read here)
    "ack --files-from=out/list KEY", "ack -x KEY",
    "fd x", "fd", "fd -e txt out", "fd x src", "fd --search-path src x", "fd --base-directory out x",
    "git grep KEY", "git grep KEY -- '*.py'", "git grep KEY -- :/", "git grep KEY -- ':!out'",
    "git grep KEY -- ':(icase)SRC'", "git --icase-pathspecs grep KEY -- out", "git grep KEY HEAD:src -- main.py",
    "git grep KEY HEAD -- out", "git grep KEY out", "git grep -e KEY -- out -- src",
    "exa -R", "exa -T", "exa -lR", "exa --recurse", "exa --tree -L 2",
    "tokei", "tokei out", "eza -R out",  # (not installed here: not proven, they ask)
    "rg KEY -g '*.py'", "du -sh", "du --max-depth=1", "tree -a",  # (du opened ./src, tree -a listed it)
])
def test_its_neighbour_reading_the_working_folder_still_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["GIT_ICASE_PATHSPECS=1 git grep KEY -- SRC",
                                  "env GIT_ICASE_PATHSPECS=1 git grep KEY -- SRC"])
def test_case_blind_pathspecs_the_line_gives_ask(setup: Setup, line: str) -> None:
    """``GIT_ICASE_PATHSPECS=1 git grep KEY -- SRC`` printed src/main.py's line (git 2.39), even
    under a rule that names the variable."""
    rules = DENIED + rule_text("[GIT_ICASE_PATHSPECS=1 git grep|env GIT_ICASE_PATHSPECS=1 git grep] **")
    assert effect_under(setup, rules, line) is not Effect.ALLOW
    assert effect_under(setup, rules, line.replace("SRC", "out")) is not Effect.ALLOW


def test_a_rule_naming_the_variable_allows_a_case_sensitive_search(setup: Setup) -> None:
    rules = DENIED + rule_text("GIT_LITERAL_PATHSPECS=1 git grep **")
    assert effect_under(setup, rules, "GIT_LITERAL_PATHSPECS=1 git grep KEY -- out") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "ag --pager 'touch PWNED' KEY out", "ag --pager=cat KEY out", "ag --pag cat KEY out",
    "ack --pager=cat KEY out", "ack --pag=cat KEY out", "ack --ackrc=out/rc KEY out", "ack --output=x KEY out",
    "fd x out -x rm", "fd x out --exec rm", "fd -X rm", "fdfind x -x rm", "fd -l x out", "fd --list-details",
    "fd --hidd x out",  # (fd takes no abbreviation: an option not known here)
])
def test_an_option_that_runs_a_command_is_never_covered(setup: Setup, line: str) -> None:
    assert effect_under(setup, NO_DENY, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["ack -C 3 out", "ack --context 3 out", "fd --base-directory src x"])
def test_an_option_not_known_here_reads_the_working_folder_even_where_a_rule_names_it(setup: Setup, line: str) -> None:
    """``ack -C 3 out`` searched ``.`` for ``out`` (src/main.py opened, ack 3.6.0, bash and dash):
    a rule naming the option covers it, not what the engine cannot tell of its words."""
    rules = DENIED + rule_text("[ack -C|ack --context|fd --base-directory] **")
    assert effect_under(setup, rules, line) is not Effect.ALLOW


@pytest.mark.parametrize(("writable", "line", "allowed"), [
    ("", "cd out && ack KEY a.txt", True),
    ("@workspace/out/**", "cd out && ack KEY a.txt", False),  # (out/.ackrc: any option, --files-from=LIST)
    ("@workspace/out/**", "ack KEY out", True),  # (the .ackrc it finds is the workspace's: not writable)
    ("~/**", "ack KEY out", False),  # (~/.ackrc: --pager=CMD runs CMD)
    ("~/**", "ag KEY out", True),
])
def test_an_ackrc_the_agent_may_write_asks(setup: Setup, writable: str, line: str, allowed: bool) -> None:
    """A planted out/.ackrc with ``--files-from=list`` made ``cd out && ack -h . .keep`` read the
    files the list names, ~/.ssh/id_rsa among them (ack 3.6.0, bash and dash)."""
    (setup.workspace / "out").mkdir(exist_ok=True)
    (setup.workspace / "out" / "a.txt").write_text("KEY\n", encoding="utf-8")
    rules = rule_text("[cd|ack|ag] **") + rule_text("~/.ssh/**", effect="deny", tool="read")
    if writable:
        rules += rule_text(writable, tool="write")
    assert (effect_under(setup, rules, line) is Effect.ALLOW) is allowed


@pytest.mark.parametrize(("line", "allowed"), [
    ("git -C out grep KEY -- .", True), ("git -C out grep -n KEY -- . a.txt", True),
    ("git -C out grep KEY -- ..", False), ("git -C out grep KEY -- ../src", False),  # (the top, src/)
    ("git -C src grep KEY -- .", False), ("git -C out -C ../src grep KEY -- .", False),
    ("git -C out grep KEY -- '../*'", False),  # (a glob pathspec: ../src/main.py matched, git 2.39)
    ("git -C out grep KEY -- ':/'", False), ("git -C out grep KEY HEAD -- .", False),
    ("git -C $D grep KEY -- .", False),
])
def test_a_pathspec_after_git_dash_c_is_read_from_the_folder_it_names(setup: Setup, line: str, allowed: bool) -> None:
    """s299: ``git -C out grep KEY -- .`` searched out/ only (strace: src/main.py never opened,
    git 2.39, bash and dash), yet asked: its ``.`` was judged from the workspace's top too."""
    (setup.workspace / "out" / "a.txt").write_text("KEY\n", encoding="utf-8")
    assert (effect_under(setup, DENIED, line) is Effect.ALLOW) is allowed


@pytest.mark.parametrize(("denied", "line", "allowed"), [
    ("@workspace/.git/**", "exa --git -l out", False), ("@workspace/.git/**", "exa -l --git-ignore out", False),
    ("@workspace/.git/**", "cd out && exa --git -l", False), ("@workspace/.git/**", "exa $O out", False),
    ("@workspace/src/**", "exa --git -l", False),  # (-M src: a file below src/ changed)
    ("@workspace/.git/**", "eza --git out", False),
    ("@workspace/.git/**", "exa -l out", True), ("@workspace/.git/**", "exa -l", True),
    ("@workspace/.git/**", "exa -- --git", True),  # (a file named --git)
])
def test_exa_showing_git_status_reads_the_repository(setup: Setup, denied: str, line: str, allowed: bool) -> None:
    """s299: ``exa --git -l out`` and ``exa --git-ignore out`` opened .git/index, .git/HEAD and
    objects (libgit2, exa 0.10.1, bash and dash) past a read deny on ``@workspace/.git/**``, and
    ``exa --git -l`` showed ``-M src`` past one on src/**: they are judged as ``git status``."""
    (setup.workspace / ".git").mkdir()
    (setup.workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    rules = rule_text("[exa|eza|cd] **") + rule_text(denied, effect="deny", tool="read")
    assert (effect_under(setup, rules, line) is Effect.ALLOW) is allowed
