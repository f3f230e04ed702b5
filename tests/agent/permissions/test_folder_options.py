"""s210: a program's own option naming the folder it works in is judged as a ``cd`` there, as
git's ``-C`` is (s208): hg's ``-R``/``--repository``/``--cwd``, ninja's and make's ``-C`` (every
option of ``program_options.FOLDER_OPTIONS``), git's ``--git-dir`` and ``--work-tree``. Into a
known folder outside the workspace it asks, saying so (``hg -R ../other update null`` deleted
the person's files there, ``ninja -C ../other`` ran another project's build, ``git
--work-tree=../other checkout -f .`` overwrote files there: the s210 lines of the hostile
corpus); inside the workspace a rule for the program covers it as before."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque, Verdict

from .conftest import Setup
from .engine_verdicts import verdict_under

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|ninja|git|cmake] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _decide(setup: Setup, line: str) -> Verdict:
    return verdict_under(setup, RULES, line.replace("{outside}", str(setup.workspace.parent / "other")))


@pytest.mark.parametrize("line", [
    "hg -R ../other update null",
    "hg -R ../other revert --all",
    "hg --repository=../other status",
    "hg --repo {outside} status",
    "hg --cwd ../other rm x",
    "hg --cwd src -R ../.. status",  # -R is read from where --cwd leads
    "hg -R ~ status",
    "ninja -C ../other",
    "ninja -C../other",
    "ninja -nC ../other",  # a group of short options
    "ninja -C ~/build",
    "cmake --build ../other/build",
    "git --work-tree=../other checkout -f .",
    "git --git-dir={outside}/.git log",
    "git --work-tree ~ checkout -f .",  # the shell makes ~ the home folder
    "git -C src --work-tree=../.. status",  # relative to where -C leads
])
def test_an_option_into_a_folder_outside_the_workspace_asks_saying_so(setup: Setup, line: str) -> None:
    decision = _decide(setup, line)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize("line", [
    "hg -R src status",
    "ninja -C src",
    "ninja",
    "git --git-dir=.git --work-tree=src status",
    "git status",
])
def test_an_option_into_a_folder_of_the_workspace_is_covered_as_before(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is Effect.ALLOW


def test_a_link_of_the_workspace_leading_out_asks(setup: Setup) -> None:
    (setup.workspace / "src" / "l").symlink_to(setup.workspace.parent)
    assert _decide(setup, "hg -R src/l status").parts[0].opaque is Opaque.CD_OUTSIDE
    assert _decide(setup, "ninja -C src/l").parts[0].opaque is Opaque.CD_OUTSIDE


#: s222: the change-folder options of more project tools (``program_options.FOLDER_OPTIONS``).
PROJECT_TOOLS = RULES + """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[just|poetry|uv|tox|bun|deno] **"
"""


@pytest.mark.parametrize("line", [
    "just -d ../other x",
    "just --working-directory=../other -f ../other/justfile x",
    "just -f ../other/justfile x",  # the recipes run in the justfile's folder
    "just --justfile={outside}/justfile x",
    "poetry -C ../other lock",
    "poetry -qC ../other lock",  # a group of short options
    "poetry lock --directory=../other",
    "poetry -P ../other lock",
    "uv --directory ../other run x",
    "uv lock --project=../other",
    "tox -c ../other",
    "tox -c ../other/tox.ini -e t",
    "tox --root ../other -e t",
    "tox --root ~/p -e t",
    "bun run --cwd ../other x",
    "deno task --cwd ../other x",
    "deno task --config ../other/deno.json x",
    "deno task -c ../other/deno.json x",
])
def test_a_project_tool_s_option_into_a_folder_outside_the_workspace_asks_saying_so(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, PROJECT_TOOLS, line.replace("{outside}", str(setup.workspace.parent / "other")))
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize("line", [
    "just -d src x",
    "just -f src/justfile x",
    "just x",
    "poetry -C src lock",
    "uv --directory src lock",
    "tox -c src -e t",
    "tox --root src -e t",
    "bun run --cwd src x",
    "deno task --cwd src x",
    "deno task --config src/deno.json x",
])
def test_a_project_tool_s_option_into_a_folder_of_the_workspace_is_covered_as_before(setup: Setup, line: str) -> None:
    assert verdict_under(setup, PROJECT_TOOLS, line).effect is Effect.ALLOW


#: s240: cmake reads -S and -B, hg -R without --cwd, each from the folder it runs in, not from
#: the other's: ``cd src && cmake -S .. -B .`` configures the workspace into src/ (strace, cmake
#: 3.25, hg 6.3, bash and dash), and was asked for as if ``..`` were taken from the workspace's top.
FROM_WHERE_IT_RUNS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cd|cmake|hg] **"
"""


@pytest.mark.parametrize("line", [
    "cd src && cmake -S .. -B .",
    "cd src && cmake -B . -S ..",
    "cd src && hg -R .. status",
    "cd src && hg --cwd . -R .. status",
])
def test_folder_options_each_read_from_where_the_program_runs_stay_in_the_workspace(setup: Setup, line: str) -> None:
    assert verdict_under(setup, FROM_WHERE_IT_RUNS, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd src && cmake -S ../.. -B .",
    "cd src && cmake -S .. -B ../..",
    "cd src; cmake -S .. -B .",  # (the cd may fail: then .. is above the workspace)
    "cd src && hg -R ../.. status",
    "cd src && hg --cwd .. -R .. status",  # (-R from where --cwd leads)
])
def test_a_folder_option_leading_above_the_workspace_from_where_it_runs_still_asks(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, FROM_WHERE_IT_RUNS, line)
    assert decision.effect is None
    assert decision.parts[-1].opaque is Opaque.CD_OUTSIDE


#: s254: just reads -d and -f each from where it runs too (``cd src && just -d .. -f ../justfile
#: x`` opened the workspace's justfile and ran x there; just 1.59, bash and dash); and the folder
#: a program works in by an option of its own (ninja's -C, just's -d) is judged as the folder it
#: runs in, not as a path it reads or writes below: ``ninja -C ..`` run in src built the workspace
#: as ``ninja`` at its top does, beside a denied ``.git/**`` (strace, ninja 1.11, bash and dash).
#: s269: make's -C too (its table also reads the folder as an option value: ``make -C ..`` from
#: src chdir'ed there and opened only ./Makefile, as ``make`` at the top does; make 4.3), and the
#: folder of a ``cd``/``pushd``, which opens nothing (only stat and chdir: strace, bash and dash).
WORKING_FOLDERS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cd|pushd|just|ninja|make -C|make --directory=*] **"

[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/.git/**"

[[rule]]
effect = "deny"
tool = "write"
pattern = "@workspace/**/*.env"
"""


@pytest.mark.parametrize("line", [
    "cd src && just -d .. x",
    "cd src && just --working-directory .. x",
    "cd src && just -d .. -f ../justfile x",
    "cd src && ninja -C ..",
    "ninja -C .",
    "ninja -C src",
    "just -d . x",
    "cd src && make -C ..",
    "cd src && make -C .. test",
    "cd src && make --directory=..",
    "make -C src -C ..",
    "make -C .",
    "cd .",
    "cd src && cd ..",
    "cd src && cd .. && ninja",
    "pushd src",
])
def test_the_folder_a_build_tool_works_in_is_judged_as_where_it_runs(setup: Setup, line: str) -> None:
    (setup.workspace / ".git").mkdir()
    assert verdict_under(setup, WORKING_FOLDERS, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "ninja -C .git",  # (it writes .ninja_log where it works: in the denied folder)
    "ninja -C .git/hooks",
    "just -d .git x",
    "cd src && ninja -C .. ..",  # (the same folder as a word it is given: any file below it)
    "cd src && just -d .. x ..",  # (a recipe's argument: any file below it)
    "cd src && ninja -C .. ../.git/x",
    "make -C .git",
    "make -C src -C ../.git",
    "cd src && make -C .. -f ../.git/x",  # (a makefile in the denied folder)
    "cd src && make -C .. -I ../.git",
    "cd src && make -C .. -C .git",
    "cd .git",  # (the folder a deny covers: what runs there is in it)
    "cd .git/hooks",
    "cd src && cd ../.git",
    "pushd .git",
])
def test_a_working_folder_a_deny_covers_or_a_word_above_one_still_asks(setup: Setup, line: str) -> None:
    (setup.workspace / ".git").mkdir()
    assert verdict_under(setup, WORKING_FOLDERS, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd src && just -d ../.. x",
    "cd src && just -f ../../justfile x",
    "just -d .. x",
    "cd src; just -d .. x",  # (the cd may fail: then .. is above the workspace)
    "cd src && ninja -C ../..",
    "make -C ..",
    "cd ..",
    "cd src && cd ../..",
])
def test_a_working_folder_above_the_workspace_still_asks_saying_so(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, WORKING_FOLDERS, line)
    assert decision.effect is None
    assert decision.parts[-1].opaque is Opaque.CD_OUTSIDE
