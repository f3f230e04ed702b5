"""s215: a program that changes folder by an option of its own before it does anything else
(ninja's and make's ``-C``, hg's ``--cwd``: ``folder_moves``) is judged from where it works as
well as from where the line runs: ``ninja -C src -f ../out/x.ninja`` ran out/x.ninja, a file the
agent may write, under a rule for ``ninja **`` (the s215 line of the hostile corpus; strace shows
ninja 1.11 call chdir before it opens the file, under bash and dash). hg takes ``-R`` from where
``--cwd`` leads (``hg --cwd src -R .. status`` stays in the workspace), and the rule suggested
for ``git -C src status`` is ``git status **``, as for ``git status``."""

from __future__ import annotations

import subprocess

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.folder_moves import moves
from echo_desk.agent.permissions.model import Opaque, Verdict
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|ninja|make|printf] **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "make -C * **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"

[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/keep/**"
"""
#: Without the deny (hg reads the whole repository it works on: a deny below it asks).
NO_DENY = RULES.split('[[rule]]\neffect = "deny"')[0]


def _decide(setup: Setup, line: str, rules: str = RULES) -> Verdict:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace)


@pytest.mark.parametrize(("line", "words", "folders"), [
    ("ninja -C build", {1, 2}, ("build",)),
    ("ninja -Cbuild all", {1}, ("build",)),
    ("make -C a -C b all", {1, 2, 3, 4}, ("a", "b")),  # make reads each -C from the last
    ("make --directory=sub", {1}, ("sub",)),
    ("make --dir=sub", {1}, ("sub",)),  # getopt takes a unique beginning of --directory (s235)
    ("make -kC sub", {1}, (None,)),  # a group of short options: not read here
    ("ninja -C a -C b", {1, 2, 3, 4}, (None,)),  # ninja keeps the last: not read here
    ("hg --cwd sub status", {1, 2}, ("sub",)),
    ("hg --cwd=sub status", {1}, ("sub",)),
    ("hg -R sub status", set(), ()),  # -R is the repository, not the folder hg works in
    ("ninja -C '' all", {1, 2}, (None,)),
    ("ninja -- -C x", set(), ()),
    ("cmake -S src -B build", set(), ()),
    ("scons -C a -C b -Q", {1, 2, 3, 4}, ("a", "b")),  # scons reads each -C from the last (s235)
    ("scons --directory=a", {1}, ("a",)),
])
def test_which_words_change_the_folder(line: str, words: set[int], folders: tuple[str | None, ...]) -> None:
    argv = tuple(w.strip("'") for w in line.split())
    found = moves(argv[0], argv)
    assert (set(found.words), found.folders) == (words, folders)


def test_the_file_ninja_runs_is_read_from_where_c_leads(setup: Setup) -> None:
    # (the line of the hostile corpus: the agent writes out/x.ninja, ninja -C src runs it)
    (setup.workspace / "out" / "x.ninja").write_text("rule r\n  command = touch PWNED\nbuild all: r\n")
    assert _decide(setup, "ninja -C src -f ../out/x.ninja").effect is not Effect.ALLOW
    assert _decide(setup, "ninja -C src -f ../out/x.ninja all").effect is not Effect.ALLOW
    written = "printf 'rule r\\n  command = touch PWNED\\n' > out/y.ninja && ninja -C src -f ../out/y.ninja"
    assert _decide(setup, written).effect is not Effect.ALLOW


def test_the_file_make_runs_is_read_from_where_c_leads(setup: Setup) -> None:
    (setup.workspace / "out" / "x.mk").write_text("all:\n\ttouch PWNED\n")
    assert _decide(setup, "make -C src -f ../out/x.mk").effect is not Effect.ALLOW


def test_a_file_hg_writes_is_judged_from_where_cwd_leads(setup: Setup) -> None:
    (setup.workspace / "keep").mkdir()
    subprocess.run(["hg", "init", str(setup.workspace / "sub")], check=True, capture_output=True)
    denied = _decide(setup, "hg --cwd sub cat -o ../keep/x secret")
    assert denied.effect is not Effect.ALLOW
    rule = denied.parts[0].provenance.rule
    assert rule is not None and rule.pattern == "@workspace/keep/**"  # (it was "no rule matches")
    assert _decide(setup, "hg --cwd sub cat -o ../out/x secret").effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "ninja -C src", "ninja -Csrc", "make -C src all", "hg --cwd src status", "hg --cwd src -R .. status",
])
def test_inside_the_workspace_a_rule_for_the_program_still_covers_it(setup: Setup, line: str) -> None:
    assert _decide(setup, line, NO_DENY).effect is Effect.ALLOW


@pytest.mark.parametrize("line", ["make --dir=src all", "make -kC src all", "ninja -C src -C out"])
def test_a_folder_not_read_here_asks(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is not Effect.ALLOW


def test_hg_reads_r_from_where_cwd_leads_so_it_stays_inside(setup: Setup) -> None:
    decision = _decide(setup, "hg --cwd src -R .. status", NO_DENY)
    assert decision.effect is Effect.ALLOW
    assert decision.parts[0].opaque is not Opaque.CD_OUTSIDE
    outside = _decide(setup, "hg --cwd src -R ../.. status", NO_DENY)  # (still outside: s210)
    assert outside.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize(("line", "pattern"), [
    ("git -C src status", "git status **"),
    ("git -C src -C .. log --oneline", "git log **"),
    ("git status", "git status **"),
])
def test_the_rule_suggested_for_git_c_names_its_subcommand(setup: Setup, line: str, pattern: str) -> None:
    git_in(setup.workspace, "init", "-q", "-b", "main")
    decision = _decide(setup, line, rules="")
    assert [s.pattern for s in decision.suggestions] == [pattern]


def test_a_file_git_c_writes_is_judged_from_where_c_leads_under_a_rule_naming_it(setup: Setup) -> None:
    # (`git -C src diff --output=x` writes src/x: strace, git 2.39, bash and dash)
    git_in(setup.workspace, "init", "-q", "-b", "main")
    rules = ('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git -C * diff --output=*"\n\n'
             '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/x"\n')
    assert _decide(setup, "git -C src diff --output=x", rules).effect is not Effect.ALLOW


SCONS_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "scons **"

[[rule]]
effect = "deny"
tool = "read"
pattern = "@workspace/secret/**"
"""


@pytest.mark.parametrize("line", ["scons -C src -f ../secret/key", "scons --directory=src -f ../secret/key",
                                  "scons -C src -C .. -f secret/key"])
def test_the_file_scons_runs_is_read_from_where_c_leads(setup: Setup, line: str) -> None:
    """s235: ``scons -C src -f ../x.py`` opened x.py of the folder above src (strace, scons 4,
    bash and dash), so a deny of that file holds there, as ``scons -f secret/key``'s does."""
    assert _decide(setup, "scons -f secret/key", SCONS_RULES).effect is not Effect.ALLOW
    assert _decide(setup, line, SCONS_RULES).effect is not Effect.ALLOW
    assert _decide(setup, "scons -C src -Q", SCONS_RULES).effect is Effect.ALLOW
