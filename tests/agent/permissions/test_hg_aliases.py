"""s192: hg's settings may change what a command's words say. An ``[alias]`` of a command's own
name is taken over the command (``[alias] status = !touch x`` ran at ``hg status``; ``hg st``
stays the command), a word names the alias it is a prefix of (``hg sta`` with ``[alias] stat``),
and ``[defaults]`` adds words before the line's (``[defaults] cat = -o F`` wrote F at ``hg cat
f``): proven with hg 6.3 under bash and dash, in a scratch home. A rule naming the command
(``hg status **``) judged it by its words; settings that redefine it now count every file, as a
settings file the engine cannot read does: the line asks while the agent may write anywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_config

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .hg_rules import judged_under


@pytest.fixture
def hgrc(setup: Setup) -> Path:
    judged_under(setup)
    return setup.home / ".hgrc"


@pytest.mark.parametrize(("settings", "line"), [
    ("[alias]\nstatus = !touch ~/x\n", "hg status"),
    ("[alias]\nstat = !touch ~/x\n", "hg stat"),
    ("[alias]\nstat = !touch ~/x\n", "hg sta"),  # (a prefix of the alias: hg finds it ambiguous, or the alias)
    ("[alias]\nlog = log --config hooks.pre-log=x\n", "hg -q log"),
    ("[defaults]\ncat = -o ~/.bashrc\n", "hg cat f"),
    ("[defaults]\ncat = -o ~/.bashrc\n", "hg ca f"),
    ("[defaults]\nstatus = --config x.y=z\n", "hg st"),  # (st is status)
    ("%include more\n", "hg status"),  # (a file included, with an alias)
])
def test_settings_that_redefine_the_command_make_it_ask(setup: Setup, hgrc: Path, settings: str, line: str) -> None:
    (setup.home / "more").write_text("[alias]\nstatus = !touch ~/x\n", encoding="utf-8")
    hgrc.write_text(settings, encoding="utf-8")
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize(("settings", "line"), [
    ("[alias]\nstatus = !touch ~/x\n", "hg st"),  # (hg's own short name stays the command)
    ("[alias]\nlg = log -G\n", "hg status"),
    ("[defaults]\ncat = -o ~/.bashrc\n", "hg log"),
    ("[defaults]\ncat =\n", "hg cat f"),  # (no words added)
    ("[ui]\nusername = me\n", "hg status"),
])
def test_settings_that_leave_the_command_alone_keep_the_rule(setup: Setup, hgrc: Path, settings: str,
                                                             line: str) -> None:
    hgrc.write_text(settings, encoding="utf-8")
    assert _verdict(setup, line) is Effect.ALLOW


def test_the_repository_settings_count_too(setup: Setup, hgrc: Path) -> None:
    # (a repository the agent may not write: in one where it may, every hg command asks)
    (setup.home / "r" / ".hg").mkdir(parents=True)
    (setup.home / "r" / ".hg" / "hgrc").write_text("[alias]\nstatus = !touch ~/x\n", encoding="utf-8")
    assert _verdict(setup, f"hg -R {setup.home}/r status") is not Effect.ALLOW


def test_a_settings_file_not_read_may_redefine_any_command(tmp_path: Path) -> None:
    (tmp_path / "hgrc").write_text("[alias\n", encoding="utf-8")
    assert hg_config.redefined([tmp_path / "hgrc"], tmp_path, "status")
    (tmp_path / "hgrc").write_text("[alias]\nlg = log -G\n", encoding="utf-8")
    assert not hg_config.redefined([tmp_path / "hgrc"], tmp_path, "status")
