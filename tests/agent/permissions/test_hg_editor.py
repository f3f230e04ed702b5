"""s309: ``hg commit`` with no ``-m``/``-l`` runs an editor: ``HGEDITOR``, else ``ui.editor``, else
``VISUAL``, else ``EDITOR``, else ``vi`` (hg 6.3, ``ui.geteditor``), as a shell line. An editor
the agent names ran: ``HGEDITOR='touch PWNED' hg commit`` (and ``EDITOR``, ``VISUAL``, ``hg
--config ui.editor='touch PWNED' commit``) created PWNED under bash and dash, scratch home. Each
way the agent can name one already asks under ``hg **``: a variable the line gives hg (as a
prefix, exported, ``declare -x``, ``set -a``, through ``env``), ``--config`` (covered only by a
rule naming it), a repository ``.hg/hgrc`` the agent may write (every hg command there asks).
These guards keep it so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

VCS = rule_text("hg **", "cd **")
EDITOR_LINES = [
    "HGEDITOR='touch PWNED' hg commit",
    "EDITOR='touch PWNED' hg ci",
    "VISUAL='touch PWNED' hg commit -A",
    "export HGEDITOR='touch PWNED'; hg commit",
    "HGEDITOR='touch PWNED'; export HGEDITOR; hg commit",
    "declare -x VISUAL=touch; hg commit",
    "set -a; EDITOR=touch; hg commit",
    "env HGEDITOR='touch PWNED' hg commit",
    "hg --config ui.editor='touch PWNED' commit",
    "hg --config=ui.editor=touch commit",
    "hg commit --config ui.editor=touch",
]


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("line", ["HGEDITOR='touch PWNED' hg commit", "hg --config ui.editor='touch PWNED' commit"])
def test_hg_commit_runs_the_editor_the_line_names(tmp_path: Path, shell: str, line: str) -> None:
    if shutil.which("hg") is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    home, work = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    work.mkdir()
    (home / ".hgrc").write_text("[ui]\nusername = t\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C"}
    subprocess.run(["hg", "init", "-q"], cwd=work, env=env, check=True, capture_output=True)
    (work / "f").write_text("x\n", encoding="utf-8")
    subprocess.run(["hg", "add", "-q", "f"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([shell, "-c", line], cwd=work, env=env, capture_output=True, timeout=60)
    assert (work / "PWNED").exists()


@pytest.mark.parametrize("line", EDITOR_LINES)
def test_an_editor_the_line_names_asks(setup: Setup, line: str) -> None:
    (setup.workspace / ".hg").mkdir()
    assert effect_under(setup, VCS, line) is not Effect.ALLOW


def test_an_editor_of_a_repository_the_agent_may_write_asks(setup: Setup) -> None:
    (setup.workspace / "out" / ".hg").mkdir(parents=True)
    (setup.workspace / "out" / ".hg" / "hgrc").write_text("[ui]\neditor = touch PWNED\n", encoding="utf-8")
    rules = VCS + writes_allowed("@workspace/out/**")
    assert effect_under(setup, rules, "cd out && hg commit") is not Effect.ALLOW
    assert effect_under(setup, rules, "hg --cwd out commit") is not Effect.ALLOW
    assert effect_under(setup, rules, "hg -R out commit") is not Effect.ALLOW


def test_a_message_on_the_line_keeps_the_rule(setup: Setup) -> None:
    (setup.workspace / ".hg").mkdir()
    assert effect_under(setup, VCS, "hg commit -m x") is Effect.ALLOW
