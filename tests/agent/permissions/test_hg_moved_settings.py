"""s309: ``hg --cwd D`` and ``hg -R D`` are judged with the settings hg reads there. The engine
gave up on the settings of a line naming a repository (``hg_aliases.settings``), so ``hg --cwd
out log`` beside a read-denied ``src/`` asked while ``cd out && hg log`` was allowed. With hg 6.3,
under bash and dash (strace, scratch home), ``hg --cwd out log``, ``hg log --cwd out`` and ``hg -R
. log`` opened nothing below src/ and printed no secret, with out/.hg and without it (hg then
finds the workspace's repository, as ``cd out && hg log`` does).

The settings found there still count: a planted ``out/.hg/hgrc`` with ``[alias] log = !cd ..;
cd src; cat main.py`` made ``hg --cwd out log`` print src/main.py's ``KEY=secret``, and ``[hooks]
pre-log = cd ..; cd src; cat main.py`` made ``hg --cwd out log`` and ``hg -R out log`` print it
(bash and dash). An alias is judged as what it runs; a repository the agent may write asks under
any hg command (``settings_files``), as in ``cd out && hg log``. A shortened command name under
``--cwd``/``-R`` still asks (s296).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

VCS = rule_text("hg **", "cd **")
DENIED = VCS + rule_text("@workspace/src/**", effect="deny", tool="read")
MOVED = ["hg --cwd out log", "hg --cwd=out log", "hg -R out log", "hg -Rout log", "hg --repository out log",
         "hg log --cwd out", "hg log -R out", "hg -q --cwd out log -l 3"]


@pytest.fixture
def workspace(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    (setup.workspace / "src").mkdir(exist_ok=True)
    (setup.workspace / "out" / ".hg").mkdir(parents=True)
    return setup


@pytest.mark.parametrize("line", ["cd out && hg log", *MOVED])
def test_a_command_judged_with_the_settings_of_where_it_works_keeps_the_rule(workspace: Setup, line: str) -> None:
    assert effect_under(workspace, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["hg --cwd out log", "hg log --cwd out", "hg --cwd out/x log"])
def test_a_folder_without_its_own_repository_reads_the_one_above(workspace: Setup, line: str) -> None:
    (workspace.workspace / "out" / ".hg").rmdir()
    (workspace.workspace / "out" / "x").mkdir()
    assert effect_under(workspace, DENIED, line) is Effect.ALLOW


@pytest.mark.parametrize("settings", [
    "[alias]\nlog = !cd ..; cd src; cat main.py\n",
    "[alias]\nlog = cat ../src/main.py\n",
    "[defaults]\nlog = -p\n",
    "[extensions]\nextdiff =\n[alias]\nlog = extdiff -p cat\n",
])
@pytest.mark.parametrize("line", MOVED)
def test_the_settings_of_the_repository_named_are_read(workspace: Setup, settings: str, line: str) -> None:
    (workspace.workspace / "out" / ".hg" / "hgrc").write_text(settings, encoding="utf-8")
    assert effect_under(workspace, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", MOVED)
def test_a_repository_the_agent_may_write_asks(workspace: Setup, line: str) -> None:
    """Its settings may be the agent's: a hook there (``pre-log = cd ..; cd src; cat main.py``)
    printed src/main.py's secret under ``hg --cwd out log`` and ``hg -R out log``."""
    assert effect_under(workspace, DENIED + writes_allowed("@workspace/out/**"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "hg -R default log",  # (a [paths] name: hg takes the path it names)
    "hg -R out -R src log",
    "hg --cwd out --cwd=src log",
    'hg -R "$R" log',
    'hg log --cwd "$D"',
    "hg -R ssh://host/r log",
])
def test_a_repository_not_known_here_asks(workspace: Setup, line: str) -> None:
    (workspace.workspace / ".hg" / "hgrc").write_text("[paths]\ndefault = ../elsewhere\n", encoding="utf-8")
    assert effect_under(workspace, DENIED, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg --cwd out lo", "hg -R out lo"])
def test_a_shortened_command_name_elsewhere_still_asks(workspace: Setup, line: str) -> None:
    assert effect_under(workspace, VCS, line) is not Effect.ALLOW
