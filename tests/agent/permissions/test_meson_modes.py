"""meson's commands that run a program the line names (s164): ``meson devenv`` runs a command
in the project's developer environment, ``meson test --wrapper``/``--gdb``/``--gdb-path``
runs every test under another program, ``meson subprojects foreach`` runs a command in each
subproject's folder, ``meson runpython`` runs Python and ``meson --internal`` meson's internal
commands. A rule naming meson trusts meson, not these programs. meson is not installed here:
the verdicts follow its documentation (meson 1.x)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed
from .test_install_records import meson_record

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[meson|ninja|cd|printf] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/*.md"
"""


def _verdict(setup: Setup, line: str, extra: str = "") -> Effect | None:
    return effect_under(setup, RULES + extra, line)


@pytest.mark.parametrize("line", [
    # devenv runs its command (an interactive shell without one), in a changed environment.
    "meson devenv -C b sh -c 'touch PWNED'", "meson devenv -Cb python3 x.py", "meson devenv --workdir src -C b sh x.sh",
    "meson devenv -C b -- sh -c x", "meson devenv -C b", "printf 'touch PWNED\\n' | meson devenv -C b",
    "meson devenv -C b --dump ~/.bashrc", "meson devenv -C b --dump=../home/.profile", "meson devenv -C b --work=src sh",
    # test runs each test under the program it is given.
    "meson test -C b --wrapper 'sh -c touch\\ PWNED'", "meson test -C b --wrapper=sh", "meson test --wrap=valgrind",
    "meson test -C b --gdb", "meson test --gdb-path ./out/gdb", "meson test --gdb-p=./x",
    # subprojects foreach runs its command in each subproject's folder.
    "meson subprojects foreach sh -c 'touch PWNED'", "meson subprojects foreach --types git sh -c x",
    # runpython and the internal commands run code.
    "meson runpython -c 'import os; os.system(\"touch PWNED\")'", "meson runpython out/x.py",
    "meson --internal exe -- sh -c x",
])
def test_a_program_meson_runs_needs_its_own_rule(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "named"), [
    ("meson devenv -C b ninja", "meson devenv **"), ("meson test -C b --wrapper valgrind", "meson test ** --wrapper **"),
    ("meson subprojects foreach ninja", "meson subprojects foreach **"), ("meson runpython src/x.py", "meson runpython **"),
])
def test_a_rule_naming_the_mode_covers_it(setup: Setup, line: str, named: str) -> None:
    """The program it runs is judged by its own rules (ninja's here); the mode by a rule that
    names it."""
    assert _verdict(setup, line) is not Effect.ALLOW
    rule = f'\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "{named}"\n'
    valgrind = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "valgrind **"\n'
    assert _verdict(setup, line, rule + valgrind) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "meson setup b", "meson compile -C b", "meson test -C b", "meson test -C b --suite unit --num-processes 4",
    "meson configure b", "meson --version", "meson introspect b --targets",
])
def test_everyday_meson_stays_allowed(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


def test_a_machine_file_counts_as_code(setup: Setup) -> None:
    """--native-file and --cross-file name the compilers meson runs."""
    assert _verdict(setup, "meson setup b --native-file out/n.md") is not Effect.ALLOW
    assert _verdict(setup, "meson setup b --cross-file=out/c.md") is not Effect.ALLOW
    assert _verdict(setup, "meson setup b --native-file src/n.ini") is Effect.ALLOW


def test_devenv_dump_writes_where_the_write_rules_allow(setup: Setup) -> None:
    """--dump FILE writes the environment to FILE: judged by the write rules even where a
    rule names devenv."""
    named = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "meson devenv **"\n'
    assert _verdict(setup, "meson devenv -C b --dump out/env.md", named) is Effect.ALLOW
    assert _verdict(setup, "meson devenv -C b --dump ~/.bashrc", named) is not Effect.ALLOW
    assert _verdict(setup, "meson devenv -C b --dump=../home/.bashrc", named) is not Effect.ALLOW


# -- install --destdir (s240) --------------------------------------------------------------------
#: ``meson install --destdir D`` installs below D, from the folder ``-C`` names (meson changes into
#: it first: ``meson install -C b --destdir dd`` wrote b/dd/…; strace, meson 1.12, bash and dash).
#: A rule naming meson trusts installing below the project's prefix, not below any folder.
INSTALLS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[meson|cd] **"
"""


@pytest.mark.parametrize("line", [
    "meson install --destdir ../other/d", "meson install --destdir /tmp/stage", "meson install --destdir=../d",
    "meson install -C b --destdir ../../d", "meson install -Cb --destdir=../../d", "meson install -qC b --destdir d",
    "meson install -C b --destdir d", "cd b && meson install --destdir ../d", "meson install --destdir $D",
    "meson install --destdir=d --destdir ../d", "meson install -C $B --destdir d",
])
def test_an_install_below_a_folder_no_write_rule_allows_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, INSTALLS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd b && meson install", "meson install -C b", "meson install -C b --no-rebuild --tags runtime",
    "cd b && meson install -q -n", "meson compile -C b", "meson test -C b",
])
def test_an_install_below_the_project_s_prefix_stays_allowed(setup: Setup, line: str) -> None:
    """... where the write rules let the agent write below the prefix the build folder records
    (s280: test_install_records)."""
    meson_record(setup.workspace / "b", f"{setup.home}/stage")
    assert effect_under(setup, INSTALLS + writes_allowed("~/stage/**"), line) is Effect.ALLOW


# -- setup's install folders (s254, s273) ---------------------------------------------------------
#: ``meson setup --prefix /x build`` records /x for ``meson install`` and opens nothing below it
#: (it wrote only below build/: strace, meson 1.12, bash and dash), as ``-Dprefix=/x`` does: the
#: value is not a folder it configures. The later plain ``meson install`` writes below it without
#: naming it, so the setup is judged as writing below it (s273: ``test_install_steps``).
@pytest.mark.parametrize("line", [
    "meson setup --prefix /x build", "meson setup --prefix ~/.local build", "meson setup build --prefix /opt/p",
    "meson setup --prefix /x --libdir lib64 --buildtype release -D b_lto=true build", "meson setup -Dprefix=/x build",
    "meson setup --bindir /x/b --sysconfdir /etc --wrap-mode nodownload build",
])
def test_setup_s_install_folders_are_judged_as_written_below(setup: Setup, line: str) -> None:
    assert effect_under(setup, INSTALLS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "meson setup --buildtype release --wrap-mode nodownload -D b_lto=true build", "meson setup build --unity on",
])
def test_setup_s_other_values_are_not_folders_it_configures(setup: Setup, line: str) -> None:
    assert effect_under(setup, INSTALLS, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "meson setup --prefix /x ../b",  # (the build folder outside)
    "meson setup --prefix /x b ../p",  # (the source folder outside: its meson.build runs)
    "meson setup --pkg-config-path ../other b",  # (folders it reads files from)
    "meson setup --cmake-prefix-path ../other b",
    "meson setup --pre /x b",  # (argparse's beginning of an option: not read here)
])
def test_a_setup_folder_outside_the_workspace_still_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, INSTALLS, line) is not Effect.ALLOW
