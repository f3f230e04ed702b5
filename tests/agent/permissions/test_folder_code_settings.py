"""Programs whose settings file is code they run (s140): hg runs the hooks of the repository's
.hg/hgrc, pdb runs ./.pdbrc, irb ./.irbrc, rake the nearest Rakefile and the rakelib/*.rake
beside it, gdb ./.gdbinit (when the person's own auto-load safe-path lets it) and each the
user's own files. Where the write rules let the agent write one of them, a rule naming the
program no longer allows it. The hostile corpus proves the harm for hg, pdb3, irb and rake
(issue ``s140``); gdb's ./.gdbinit runs only under a safe-path of the person's own settings,
which the corpus world does not have, so it is pinned here only. hg's --config and --debugger
run code under any subcommand: a rule covers them only by naming them."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.settings_files import places

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed

PROGRAMS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|pdb3|python3 -m pdb|irb|rake|gdb|cd] **"
"""


def _verdict(setup: Setup, line: str, *writable: str) -> Effect | None:
    return effect_under(setup, PROGRAMS + writes_allowed(*writable), line)


@pytest.mark.parametrize("line", [
    "cd out && hg status", "cd out && hg root", "cd out && pdb3 ../src/main.py", "cd out && irb",
    "cd out && rake -T", "cd out/deeper && rake -T", "cd out && gdb -batch",
    # hg's -R (--repository, --repo) and --cwd name the repository whose .hg/hgrc it reads.
    "hg -R out/r status", "hg -Rout/r status", "hg --repository out/r status", "hg --repository=out/r log",
    "hg --repo out/r root", "hg status -R out/r", "hg --cwd out root", "hg --cwd=out status",
    "hg --cwd src -R ../out/r root",
    # No folder after the option: any folder.
    "hg status -R",
])
def test_folder_settings_the_agent_may_write_ask(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "hg status", "hg log -r tip", "hg -R src status", "hg status -- out", "pdb3 src/main.py",
    "python3 -m pdb src/main.py", "irb", "rake -T", "gdb -batch",
])
def test_folder_settings_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    # rake loads every rakelib/*.rake beside the Rakefile it finds, as Ruby code.
    ("rake -T", "@workspace/rakelib/**"),
    ("cd src && rake -T", "@workspace/rakelib/*.rake"),
    # pdb runs ./.pdbrc (python -m pdb too: the module's name is the program).
    ("python3 -m pdb src/main.py", "@workspace/.pdbrc"),
    ("pdb3 src/main.py", "@workspace/.pdbrc"),
    ("irb", "@workspace/_irbrc"),
    ("irb", "@workspace/.config/irb/**"),
    ("hg status", "@workspace/.hgsub"),
    # The user's own settings, read wherever the program runs.
    ("hg status", "~/.hgrc"), ("hg status", "~/.config/hg/**"), ("pdb3 src/main.py", "~/.pdbrc"),
    ("python3 -m pdb src/main.py", "~/.pdbrc"), ("irb", "~/.irbrc"), ("irb", "~/.config/irb/**"),
    ("gdb -batch", "~/.gdbinit"), ("gdb -batch", "~/.config/gdb/**"), ("rake -T", "~/.rake/**"),
    # hg and pdb3 are python programs: a .pth of the user's site-packages runs at their start.
    ("hg version", "~/.local/**"), ("pdb3 src/main.py", "~/.local/**"),
])
def test_each_file_a_program_runs_counts(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW


def test_hg_counts_every_folder_of_its_repository(setup: Setup) -> None:
    """hg runs in each subrepository .hgsub names (a commit, ``-S``, an update to a revision
    that names one) with that repository's .hg/hgrc: in a repository, every folder counts."""
    assert _verdict(setup, "hg status", "@workspace/out/**") is Effect.ALLOW
    (setup.workspace / ".hg").mkdir()
    assert _verdict(setup, "hg status", "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, "cd src && hg status", "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, "hg status", "@workspace/docs/*.md") is Effect.ALLOW


def test_hg_looks_where_its_options_say(setup: Setup) -> None:
    cwd = setup.workspace
    folders = {p.folder for p in places(("hg", "--cwd", "src", "-R", "../out/r", "root"), [cwd])}
    assert {cwd / "src", cwd / "out" / "r", cwd} <= folders
    # Not an option of its own: `--repos` and `-qR` make hg stop ("may only be abbreviated as --repo").
    folders = {p.folder for p in places(("hg", "log", "-r", "out"), [cwd])}
    assert cwd / "out" not in folders
    # A folder known only when the line runs (`hg -R "$R" status`): any folder, below too.
    assert any(p.folder == Path("/") and p.below for p in places(("hg", "-R", None, "status"), [cwd]))


HG_READING = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "hg status **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "hg log **"
"""


@pytest.mark.parametrize(("line", "effect"), [
    # --config sets any setting for the run (a hook, a shell alias), --debugger starts pdb,
    # which runs ./.pdbrc: a rule naming a subcommand with ** covers neither (proven, hg 6.3).
    ("hg status --config hooks.pre-status='touch PWNED'", None),
    ("hg log --config 'alias.log=!touch PWNED'", None),
    ("hg log -r tip --config=ui.quiet=1", None),
    ("hg status --debugger", None),
    ("hg status", Effect.ALLOW), ("hg log -r tip", Effect.ALLOW),
    ("hg status -- --config", Effect.ALLOW),  # after --, a file's name
])
def test_hg_options_that_run_code_are_covered_only_by_naming_them(setup: Setup, line: str,
                                                                  effect: Effect | None) -> None:
    setup.write_user_rules(HG_READING)
    setup.engine.refresh()
    verdict = setup.engine.check_command(line, workspace=setup.workspace).effect
    assert (verdict is Effect.ALLOW) is (effect is Effect.ALLOW)


RAKE_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "rake **"
"""


@pytest.mark.parametrize(("line", "effect"), [
    # rake's options that name code it loads (read as make's are): -C (another folder's
    # Rakefile; --dir abbreviates --directory), -f, -R/--rakelibdir, -r, -I; -e/-E/-p run Ruby
    # code; a VAR=value operand sets the tasks' environment (proven, rake 13.0.6).
    ("rake -C out -T", None), ("rake --dir out -T", None), ("rake --directory=out -T", None),
    ("rake -R lib2 -T", None), ("rake --rakelib lib2 -T", None), ("rake -f out/x.rb", None),
    ("rake -e 'system(\"touch PWNED\")'", None), ("rake -p 1", None), ("rake -r ./out/x -T", None),
    ("rake -I out test", None), ("rake test RUBYOPT=-rx", None),
    ("rake -T", Effect.ALLOW), ("rake test", Effect.ALLOW), ("rake -j 4 test", Effect.ALLOW),
    ("rake --trace test", Effect.ALLOW), ("rake -AT", Effect.ALLOW), ("rake -q -s test", Effect.ALLOW),
])
def test_rake_options_that_name_code_are_covered_only_by_naming_them(setup: Setup, line: str,
                                                                      effect: Effect | None) -> None:
    setup.write_user_rules(RAKE_RULES)
    setup.engine.refresh()
    verdict = setup.engine.check_command(line, workspace=setup.workspace).effect
    assert (verdict is Effect.ALLOW) is (effect is Effect.ALLOW)


GDB_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "gdb **"
"""


@pytest.mark.parametrize(("line", "effect"), [
    # gdb's options that run commands (s150, proven with gdb 13): -ex/--eval-command and -iex
    # run the command given, -x/--command and -ix a file of commands. One dash or two, any
    # unique prefix of a long name, anywhere on the line.
    ("gdb -batch -ex 'shell touch PWNED'", None), ("gdb -batch --eval-command='shell id'", None),
    ("gdb -batch -eval-c 'shell id'", None), ("gdb -batch -iex 'shell id'", None),
    ("gdb -batch --init-eval-command='shell id'", None), ("gdb -batch -x out/cmds", None),
    ("gdb -batch --command=out/cmds", None), ("gdb -batch -comm=out/cmds", None), ("gdb -batch -ix out/cmds", None),
    ("gdb -batch -xout/cmds", None), ("gdb ./a.out -x out/cmds", None), ('gdb -batch "$OPT" x', None),
    ("gdb -batch", Effect.ALLOW), ("gdb -nx -batch ./a.out", Effect.ALLOW), ("gdb -c core ./a.out", Effect.ALLOW),
    ("gdb -e ./a.out -batch", Effect.ALLOW), ("gdb -p 123 -batch", Effect.ALLOW),
    ("gdb -batch -- -x", Effect.ALLOW),  # after --, a file's name
])
def test_gdb_options_that_run_commands_are_covered_only_by_naming_them(setup: Setup, line: str,
                                                                       effect: Effect | None) -> None:
    setup.write_user_rules(GDB_RULES)
    setup.engine.refresh()
    verdict = setup.engine.check_command(line, workspace=setup.workspace).effect
    assert (verdict is Effect.ALLOW) is (effect is Effect.ALLOW)
