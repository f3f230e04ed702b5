"""s235: folders a project tool works in or writes code into that a rule for the tool covered.

- A configure's operands: ``meson setup out/mb ../other/proj`` ran that project's meson.build
  and ``cmake -B out/cb ../other/proj`` its CMakeLists.txt (meson 1.x, cmake 3.25, bash and
  dash: the s235 lines of the hostile corpus); ``meson setup ../other/b`` wrote its build folder
  there. Outside the workspace they ask as ``-C`` does; cmake's -E, -P and --build modes take
  no such operand.
- pre-commit's hook scripts, code git runs at the next commit: ``install`` wrote
  .git/hooks/pre-commit (strace, pre-commit 3.0, bash and dash; the hostile world's repository
  sets core.hooksPath, where pre-commit refuses, so this is a test here), and ``init-templatedir
  DIR`` DIR/hooks/pre-commit. The write rules judge them.
- tox's ``--root`` is where its commands run, not where it reads its settings: ``tox --root
  out`` opened ./tox.ini only (strace, tox 4, bash and dash), so a folder the agent may write
  is no longer its settings' folder."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup
from .engine_verdicts import verdict_under

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[meson|cmake|pre-commit|tox|printf|cd] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""
#: Without the write rule: meson and cmake read the build files of every folder below the one
#: they configure, and one the agent may write asks (``settings_files``).
BUILDS = RULES.split('[[rule]]\neffect = "allow"\ntool = "write"')[0]


@pytest.mark.parametrize("line", [
    "meson setup build ../other/proj",
    "meson setup ../other/b",
    "meson ../other/b",  # (setup's old spelling)
    "meson setup --reconfigure build ../other/proj",
    "cmake -B build ../other/proj",
    "cmake ../other/proj",
])
def test_a_configure_of_a_folder_outside_asks_saying_so(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, BUILDS, line)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize("line", [
    "meson setup build",
    "meson setup --buildtype=release build",  # (an install folder is a write: s273)
    "meson compile -C build",
    "meson setup build src",
    "cmake -S . -B build",
    "cmake -G Ninja -B build src",
    "cmake -E echo ../x",
    "cmake --build build --target all",
    "cd src && cmake ..",  # (read from where it runs: the workspace)
    "cd src && meson setup ../build ..",
])
def test_a_configure_inside_the_workspace_is_covered_as_before(setup: Setup, line: str) -> None:
    assert verdict_under(setup, BUILDS, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "pre-commit install",
    "pre-commit install -t pre-push",
    "pre-commit uninstall",
    "pre-commit init-templatedir ../other/t",
    "pre-commit init-templatedir src/t",
    "pre-commit init-templatedir --hook-type pre-push src/t",
    "pre-commit init-templatedir",
])
def test_pre_commit_s_hook_scripts_are_writes(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "pre-commit init-templatedir out/t",
    "pre-commit init-templatedir -t pre-push out/t",
    "pre-commit init-templatedir --hook pre-push out/t",  # (argparse: --hook is --hook-type)
    "pre-commit init-templatedir -- out/t",
    "pre-commit run -a",
    "pre-commit install-hooks",  # (its environments, in pre-commit's own cache)
])
def test_pre_commit_writing_where_the_write_rules_allow_is_covered(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", ["tox --root out -e t", "tox --root=out/t -e t",
                                  "printf x > out/tox.ini && tox --root out -e t"])
def test_tox_s_root_in_a_folder_the_agent_writes_is_covered(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", ["tox -c out -e t", "tox --root ../other -e t"])
def test_tox_s_settings_or_commands_elsewhere_still_ask(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is not Effect.ALLOW
