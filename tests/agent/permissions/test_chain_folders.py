"""s215: in a line of commands joined by ``&&`` alone, a command runs only after each ``cd`` before
it succeeded, so an allow rule is judged from the folder those lead to: ``cd out && gcc -c
../src/a.c`` writes out/a.o and nothing in the workspace's top folder (strace, gcc 12, bash and
dash), and was asked for because a.o was judged in every folder of the line. Any other separator
(``;``, ``||``, a pipe, a redirected list), or a ``cd`` the engine does not read, keeps every
folder of the line; deny and ask rules are judged from every folder whatever the line."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cd|gcc|ln|true|cat] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _effect(setup: Setup, line: str, rules: str = RULES) -> Effect | None:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace).effect


@pytest.fixture(autouse=True)
def _source(setup: Setup) -> None:
    (setup.workspace / "src" / "a.c").write_text("int x;\n")


@pytest.mark.parametrize("line", [
    "cd out && gcc -c ../src/a.c",
    "cd out && gcc -c ../src/a.c -o a.o",
    "cd src/../out && gcc -c ../src/a.c",
    "cd {ws}/out && gcc -S ../src/a.c",
])
def test_a_command_after_cd_and_and_is_judged_where_it_runs(setup: Setup, line: str) -> None:
    assert _effect(setup, line.replace("{ws}", str(setup.workspace))) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd src && gcc -c a.c",  # writes src/a.o
    "cd out; gcc -c ../src/a.c",  # if cd fails, gcc runs in the workspace
    "cd out || gcc -c ../src/a.c",
    "cd out && gcc -c ../src/a.c | cat",
    "cd out && gcc -c ../src/a.c 2>/dev/null",
    "cd out && cd - && gcc -c src/a.c",  # cd - is not read here
    "cd -P out && gcc -c ../src/a.c",
    "ln -s .. out/up && cd out/up && gcc -c src/a.c",  # a link the line makes leads anywhere
    "cd out && true $(cd ..) && gcc -c ../src/a.c",
])
def test_any_other_line_keeps_every_folder(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is not Effect.ALLOW


def test_a_deny_where_it_runs_still_refuses(setup: Setup) -> None:
    denied = RULES + '\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/out/a.o"\n'
    assert _effect(setup, "cd out && gcc -c ../src/a.c", denied) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd src && cd ../out && gcc -c ../src/a.c",
    "cd src && cd .. && cd out && gcc -c ../src/a.c",
    "cd src && cd ../out && cd ../src && cd ../out && gcc -S ../src/a.c",
])
def test_each_cd_of_a_chain_goes_from_the_folder_before(setup: Setup, line: str) -> None:
    """s230: ``cd ../out`` after ``cd src &&`` only runs in src, so it goes to out, never to the
    workspace's ``../out`` (strace, gcc 12, bash and dash: out/a.o is all that is written)."""
    assert _effect(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd src; cd ../out && gcc -c ../src/a.c",  # if cd src fails, cd ../out leaves the workspace
    "cd src || cd ../out && gcc -c ../src/a.c",
    "cd src && cd - && cd ../out && gcc -c ../src/a.c",  # cd - is not read here
    "cd src && cd -P ../out && gcc -c ../src/a.c",
    "cd src && pushd ../out && gcc -c ../src/a.c",
    "ln -s .. src/up && cd src/up && cd ../out && gcc -c src/a.c",  # a link the line makes
    "cd src && cd ../../out && gcc -c ../src/a.c",  # outside the workspace
])
def test_a_chain_the_engine_does_not_read_keeps_every_folder(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is not Effect.ALLOW
