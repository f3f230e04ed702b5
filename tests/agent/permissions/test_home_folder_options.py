"""s192: a folder an option names with ``~/`` is in the home folder, as the shell expands it.
The engine read ``hg -R ~/r``, ``hg --cwd ~/r`` and ``ninja -C ~/r`` below the folder the
program runs in (``./~/r``), so the repository's ``.hg/hgrc`` or the ``build.ninja`` in
``~/r``, which the agent may write, did not count: a hook planted there ran under ``hg -R ~/r
root`` (proven with hg 6.3 and ninja under bash and dash: the hg-home lines of the hostile
corpus).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|ninja] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/r/**"
"""


@pytest.mark.parametrize("line", ["hg -R ~/r root", "hg --cwd ~/r root", "ninja -C ~/r"])
def test_a_folder_in_the_home_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg -R ~/s root", "ninja -C ~/s"])
def test_a_folder_in_the_home_the_agent_may_not_write_asks_as_one_outside_the_workspace(setup: Setup, line: str) -> None:
    # (s210: an option into a folder outside the workspace is judged as a `cd` there)
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    decision = setup.engine.check_command(line, workspace=setup.workspace)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


CODE_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cmake|ninja|make|just] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/r/**"
"""


# s201: the same for a code file or an include folder an option names (`cmake -P ~/r/x.cmake`,
# `ninja -f ~/r/b.ninja`, `make -I ~/r`): read below the folder the program runs in, the script
# the agent wrote in ~/r did not count (cmake -P ran it: proven under bash and dash, the
# home-code-files lines of the hostile corpus). A `~` the shell leaves (glued: `ninja -C~/r`,
# `cmake -P~/r/x.cmake`) is the folder named `~` there: both count.
@pytest.mark.parametrize("line", ["cmake -P ~/r/x.cmake", "ninja -f ~/r/b.ninja", "just -f ~/r/justfile",
                                  "cmake -C ~/r/init.cmake -S src -B out", "make -I ~/r", "ninja -C~/r",
                                  "ninja -f~/r/b.ninja"])
def test_a_code_file_in_the_home_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    setup.write_user_rules(CODE_RULES)
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["cmake -P ~/s/x.cmake", "ninja -f ~/s/b.ninja"])
def test_a_code_file_in_the_home_the_agent_may_not_write_keeps_the_rule(setup: Setup, line: str) -> None:
    setup.write_user_rules(CODE_RULES)
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW


def test_a_code_file_in_a_folder_named_tilde_the_agent_may_write_asks(setup: Setup) -> None:
    """``ninja -f~/s/b.ninja``: the shell leaves the glued ``~``; ninja reads ./~/s/b.ninja."""
    setup.write_user_rules(CODE_RULES.replace("~/r/**", "@workspace/~/**"))
    setup.engine.refresh()
    assert setup.engine.check_command("ninja -f~/s/b.ninja", workspace=setup.workspace).effect is not Effect.ALLOW
    assert setup.engine.check_command("ninja -C~/s", workspace=setup.workspace).effect is not Effect.ALLOW


# s201: the same for the folders and files pytest and ruff are given: `pytest ~/scratch/t` ran the
# conftest.py the agent wrote there while the engine read ./~/scratch/t (proven under bash and
# dash: the home-scratch s201 line of the hostile corpus).
@pytest.mark.parametrize("line", ["pytest -q ~/r/t", "pytest -q ~/r/t/test_x.py", "pytest ~/r/t::test_x", "ruff check ~/r"])
def test_a_folder_pytest_or_ruff_is_given_in_the_home_asks(setup: Setup, line: str) -> None:
    setup.write_user_rules(CODE_RULES.replace("[cmake|ninja|make|just] **", "[pytest|ruff] **"))
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


def test_a_folder_pytest_is_given_the_agent_may_not_write_keeps_the_rule(setup: Setup) -> None:
    setup.write_user_rules(CODE_RULES.replace("[cmake|ninja|make|just] **", "[pytest|ruff] **"))
    setup.engine.refresh()
    assert setup.engine.check_command("pytest -q ~/s/t", workspace=setup.workspace).effect is Effect.ALLOW


# s201: and for a project folder or file an operand names: `cmake ~/scratch/s` ran the agent's
# CMakeLists.txt there, `gem build ~/scratch/g/x.gemspec` its gemspec (Ruby), `go run
# ~/scratch/m/m.go` its program, while the engine read ./~/… (proven under bash and dash: the
# home-operands lines of the hostile corpus).
@pytest.mark.parametrize("line", ["cmake ~/r/s", "meson setup out ~/r/s", "gem build ~/r/x.gemspec", "go run ~/r/m.go",
                                  "go test ~/r/..."])
def test_a_project_an_operand_names_in_the_home_asks(setup: Setup, line: str) -> None:
    setup.write_user_rules(CODE_RULES.replace("[cmake|ninja|make|just] **", "[cmake|meson|gem build|go] **"))
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


# (cmake's project outside the workspace asks wherever it is, as ninja's -C does: s235)
@pytest.mark.parametrize("line", ["gem build ~/s/x.gemspec", "go run ~/s/m.go"])
def test_a_project_the_agent_may_not_write_keeps_the_rule(setup: Setup, line: str) -> None:
    setup.write_user_rules(CODE_RULES.replace("[cmake|ninja|make|just] **", "[cmake|meson|gem build|go] **"))
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW
