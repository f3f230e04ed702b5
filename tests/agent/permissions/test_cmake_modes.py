"""cmake's command mode, ``cmake -E COMMAND`` (s152): a rule naming cmake trusts cmake, not the
commands its -E mode stands for. ``env``, ``time`` and ``chdir`` run a command, judged in its
own right; the file commands write, create or delete the paths they are given, judged by the
write rules as cp/mv/rm/touch/mkdir/ln are; an -E command the engine does not know asks. The
hostile corpus proves the harm (cmake 3.25, issue ``s152``)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.programs import read

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed
from .test_install_records import cmake_record

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cmake|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/*.md"
"""


def _verdict(setup: Setup, line: str, extra: str = "") -> Effect | None:
    return effect_under(setup, RULES + extra, line)


@pytest.mark.parametrize("line", [
    # Commands it runs need a rule of their own.
    "cmake -E env sh -c 'touch PWNED'", "cmake -E env LANG=C sh -c 'touch PWNED'", "cmake -E env -- sh x.sh",
    "cmake -E env --unset=HOME sh -c x", "cmake -E time sh -c 'touch PWNED'", "cmake -E time python3 x.py",
    # Writes outside what the write rules allow.
    "cmake -E copy src/a ~/.bashrc", "cmake -E copy_if_different src/a ~/.bashrc", "cmake -E copy src/a src/b ~",
    "cmake -E rename src/a ~/.bashrc", "cmake -E rename out/a.md src/a", "cmake -E rm -f ~/.bashrc",
    "cmake -E rm -rf -- ~/.ssh", "cmake -E remove -f ~/.bashrc", "cmake -E remove_directory ~/.ssh",
    "cmake -E touch ~/.bash_logout", "cmake -E touch_nocreate ~/.bashrc", "cmake -E make_directory ~/.config/x",
    "cmake -E create_symlink src/a ~/.bash_login", "cmake -E create_hardlink src/a ~/.bash_login",
    "cmake -E copy_directory src ~/.config", "cmake -E copy_directory src out", "cmake -E tar cf ~/.bashrc src",
    "cmake -E tar cvzf out/a.tar.gz src",
    # tar x writes where the archive's members say (cmake keeps `../`): never known beforehand.
    "cmake -E tar xf out/a.tar", "cmake -E tar xvf src/a.tar",
    # Spellings whose meaning is not known here.
    "cmake -E copy -t ~ src/a", "cmake -E rm --recursive ~/.ssh", "cmake -E env --modify=PATH=x sh",
    "cmake -E create_symlink src/a", "cmake -E tar xf out/a.tar --strip-components=1",
])
def test_a_cmake_command_is_judged_as_what_it_stands_for(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    # Commands cmake has that are not read here (hidden ones, later versions'): the rule's **
    # does not cover them; a rule naming them does.
    "cmake -E server", "cmake -E cmake_autogen x y", "cmake -E __run_co_compile --launcher=sh x",
    "cmake -E vs_link_exe x", "cmake -E copy_directory_if_newer src out",
])
def test_an_unknown_cmake_command_asks_until_a_rule_names_it(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW
    named = line.split()[2]
    assert _verdict(setup, line, f'\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "cmake -E {named} **"\n') \
        is Effect.ALLOW


def test_chdir_runs_its_command_in_another_folder(setup: Setup) -> None:
    """Like ``env -C``: a ``cd`` the line does not show, so the rule must name it, and the
    command it runs needs its own rule."""
    sh = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "sh **"\n'
    assert _verdict(setup, "cmake -E chdir src sh -c 'touch ../PWNED'", sh) is not Effect.ALLOW
    named = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "cmake -E chdir src **"\n'
    assert _verdict(setup, "cmake -E chdir src cmake -E echo hi", named) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cmake -E echo hi", "cmake -E echo_append x", "cmake -E capabilities", "cmake -E true", "cmake -E sleep 1",
    "cmake -E cat src/a", "cmake -E compare_files src/a src/b", "cmake -E sha256sum src/a",
    # Commands it runs are allowed by their own rules.
    "cmake -E env cmake -E echo hi", "cmake -E env LANG=C cmake -E echo hi", "cmake -E time cmake -E true",
    # Writes the write rules allow.
    "cmake -E touch out/b.md", "cmake -E rm -f out/a.md", "cmake -E remove out/a.md", "cmake -E tar tf src/a.tar",
    "cmake -E tar cf out/a.md src/a", "cmake -E make_directory out/x.md",
])
def test_what_the_write_rules_allow_stays_allowed(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "same_as"), [
    ("cmake -E copy src/a out/a.md", "cp src/a out/a.md"), ("cmake -E copy src/a ~/.bashrc", "cp src/a ~/.bashrc"),
    ("cmake -E copy_if_different src/a.md out", "cp src/a.md out"), ("cmake -E rename out/a.md out/b.md",
                                                                      "mv out/a.md out/b.md"),
    ("cmake -E create_symlink ../src/a out/l.md", "ln -s -T ../src/a out/l.md"),
    ("cmake -E create_hardlink src/a out/l.md", "ln -T src/a out/l.md"), ("cmake -E touch out/a.md", "touch out/a.md"),
    ("cmake -E rm -rf out/a.md", "rm -rf out/a.md"), ("cmake -E make_directory out/x.md", "mkdir -p out/x.md"),
])
def test_a_file_command_is_judged_as_the_file_program(setup: Setup, line: str, same_as: str) -> None:
    """Each path goes to the write rules as the file program's do (a copy into a folder writes
    the source's name there: cp's reading decides, for both)."""
    programs = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[cp|mv|ln|touch|rm|mkdir] **"\n'
    assert _verdict(setup, line, programs) is _verdict(setup, same_as, programs)


def test_reads_go_to_the_read_rules(setup: Setup) -> None:
    deny = '\n[[rule]]\neffect = "deny"\ntool = "read"\npattern = "~/.ssh/**"\n'
    for line in ("cmake -E cat ~/.ssh/id_rsa", "cmake -E sha256sum ~/.ssh/id_rsa",
                 "cmake -E compare_files ~/.ssh/id_rsa src/a"):
        assert _verdict(setup, line, deny) is not Effect.ALLOW


def test_deny_rules_see_the_command_it_runs(setup: Setup) -> None:
    deny = '\n[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "curl **"\n'
    assert _verdict(setup, "cmake -E env curl http://x", deny) is Effect.DENY
    assert _verdict(setup, "cmake -E time curl http://x", deny) is Effect.DENY


def test_a_recursive_delete_of_the_home_folder_meets_the_floor(setup: Setup) -> None:
    assert _verdict(setup, "cmake -E rm -rf ~") is Effect.DENY
    assert _verdict(setup, "cmake -E remove_directory ~") is Effect.DENY


def test_only_the_first_word_selects_the_command_mode() -> None:
    """cmake reads -E only as its first argument; other cmake lines read as before."""
    assert read(("cmake", "-S", ".", "-E", "env", "sh")).inners == ()
    assert read(("cmake", "-E", "env", "sh", "-c", "x")).inners[0].start == 3
    assert read(("cmake3", "-E", "time", "sh")).inners[0].start == 3
    assert read(("cmake", "-E", "rm", None)).written == (None,)


@pytest.mark.parametrize("line", [
    # Options that write the file they name (s164), glued or as the next word.
    "cmake -S src -B src/b --graphviz=../home/.bashrc", "cmake -S src -B src/b --graphviz ~/.bashrc",
    "cmake -S src -B src/b --trace-redirect=../home/.bashrc", "cmake -S src -B src/b --trace-redirect ~/.profile",
    "cmake -S src -B src/b --profiling-format=google-trace --profiling-output=../home/.bashrc",
    # What cmake prints, written into the file after the option (after the name some take).
    "cmake --version ~/.bashrc", "cmake -version ~/.bashrc", "cmake /V ~/.bashrc", "cmake --help-full ~/.bashrc",
    "cmake --help-command-list ~/.profile", "cmake --help-command include ~/.bashrc",
    "cmake --help-manual cmake ~/.bashrc", "cmake --system-information ~/.bashrc",
    # --install installs below the prefix it is given.
    "cmake --install src/b --prefix ~/.config", "cmake --install src/b --prefix=../home/.local",
    "cmake --install src/b --prefix $P",
])
def test_an_option_writing_a_file_is_judged_by_the_write_rules(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cmake -S src -B src/b --graphviz=out/g.md", "cmake -S src -B src/b --trace-redirect out/t.md",
    "cmake --version", "cmake --version out/v.md", "cmake --help-command include", "cmake --help-full out/h.md",
    "cmake --install src/b", "cmake --build src/b", "cmake --system-information out/s.md",
])
def test_an_option_writing_where_the_write_rules_allow_stays_allowed(setup: Setup, line: str) -> None:
    # (an install writes below the prefix its build folder records, s280: one the agent may write)
    cmake_record(setup.workspace / "src" / "b", f"{setup.home}/stage")
    assert _verdict(setup, line, writes_allowed("~/stage/**")) is Effect.ALLOW


@pytest.mark.parametrize("line", ["cmake -E echo hi", "cmake -E capabilities", "cmake -E touch out/x",
                                  "cmake -E env cmake -E echo hi"])
def test_the_command_mode_reads_no_build_file(setup: Setup, line: str) -> None:
    """cmake -E opens no file of the project (strace, cmake 3.25): a writable out/ below the
    folder it runs in, where cmake's build files may be, does not make it ask."""
    writable = '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n'
    assert _verdict(setup, line, writable) is Effect.ALLOW
    # The cmake that -E env runs reads them, as any cmake does.
    assert _verdict(setup, "cmake -E env cmake -S . -B b", writable) is not Effect.ALLOW


@pytest.mark.parametrize("prefix", ["~/stage/p", "@HOME@/stage/p", "--prefix=@HOME@/stage/p"])
def test_the_install_prefix_is_a_folder_written_not_one_read(setup: Setup, prefix: str) -> None:
    """``cmake --install b --prefix P`` opened nothing below P but what it installed: a
    CMakeLists.txt, CMakeCache.txt and cmake_install.cmake planted there were not read (strace,
    cmake 3.25, bash and dash, s293). P is judged by the write rules alone."""
    cmake_record(setup.workspace / "src" / "b", f"{setup.home}/stage")
    spelled = prefix.replace("@HOME@", str(setup.home))
    line = f"cmake --install src/b {spelled if spelled.startswith('--') else '--prefix ' + spelled}"
    assert _verdict(setup, line, writes_allowed("~/stage/**")) is Effect.ALLOW
    assert _verdict(setup, line.replace("stage/p", "other/p"), writes_allowed("~/stage/**")) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["cmake --install ~/stage/b --prefix out/p", "cmake --install src/b --prefix $P"])
def test_the_build_folder_and_an_unknown_prefix_still_count(setup: Setup, line: str) -> None:
    """(the word after --install is the build folder, whose cmake_install.cmake runs)"""
    cmake_record(setup.workspace / "src" / "b", f"{setup.home}/stage")
    assert _verdict(setup, line, writes_allowed("~/stage/**", "@workspace/out/**")) is not Effect.ALLOW
