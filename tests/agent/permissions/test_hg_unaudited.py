"""s317: an extension the engine has not audited changes what hg's own commands do. With
``[extensions] fsmonitor =`` in ~/.hgrc, ``hg status`` ran ``watchman`` from ``PATH`` (hg 6.3,
scratch home, bash and dash) while the engine judged it as hg with no extension. Now an hg
command asks while its settings enable an extension not audited (fsmonitor, schemes, journal, an
extension loaded from a file, one hg does not bundle); the audited ones keep ``hg **``. The
person's settings are needed: engine tests.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

VCS = rule_text("hg **", "cd **")
LINES = ["hg status", "hg log", "hg commit -m x", "hg pull", "hg update", "hg --cwd out log"]


@pytest.fixture
def repository(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    (setup.workspace / "out").mkdir(exist_ok=True)
    return setup


@pytest.mark.parametrize("extensions", [
    "fsmonitor =", "hgext.fsmonitor =", "schemes =", "journal =", "remotefilelog =", "zeroconf =",
    "logtoprocess =", "rebase = /opt/ext/rebase.py", "evolve =", "hgext3rd.evolve =", "mine = ~/ext.py",
    "rebase =\nfsmonitor =",
])
@pytest.mark.parametrize("line", LINES)
def test_an_unaudited_extension_asks(repository: Setup, extensions: str, line: str) -> None:
    (repository.home / ".hgrc").write_text(f"[extensions]\n{extensions}\n", encoding="utf-8")
    assert effect_under(repository, VCS, line) is not Effect.ALLOW


def test_the_repository_settings_enable_it_too(repository: Setup) -> None:
    (repository.workspace / ".hg" / "hgrc").write_text("[extensions]\nfsmonitor =\n", encoding="utf-8")
    assert effect_under(repository, VCS, "hg status") is not Effect.ALLOW


@pytest.mark.parametrize("settings", [
    "", "[extensions]\nfsmonitor = !\n", "[extensions]\nrebase =\nhistedit =\nhgext.mq =\n",
    "[extensions]\neol =\nkeyword =\nblackbox =\npurge =\nstrip =\nshelve =\ncolor =\npager =\n",
])
@pytest.mark.parametrize("line", LINES)
def test_audited_extensions_keep_the_rule(repository: Setup, settings: str, line: str) -> None:
    (repository.home / ".hgrc").write_text(settings, encoding="utf-8")
    assert effect_under(repository, VCS, line) is Effect.ALLOW


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_fsmonitor_runs_watchman_at_status(tmp_path: Path, shell: str) -> None:
    if shutil.which("hg") is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    home, work, tools = tmp_path / "home", tmp_path / "ws", tmp_path / "bin"
    for folder in (home, work, tools):
        folder.mkdir()
    (home / ".hgrc").write_text("[extensions]\nfsmonitor =\n", encoding="utf-8")
    watchman = tools / "watchman"
    watchman.write_text(f"#!/bin/sh\ntouch {tmp_path}/PWNED\nexit 1\n", encoding="utf-8")
    watchman.chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{tools}:/usr/bin:/bin", "LANG": "C"}
    subprocess.run(["hg", "init", "-q"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([shell, "-c", "hg status"], cwd=work, env=env, capture_output=True, timeout=60)
    assert (tmp_path / "PWNED").exists()
