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
def test_a_folder_in_the_home_the_agent_may_not_write_keeps_the_rule(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW
