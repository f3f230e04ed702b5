"""s201: hg expands ``$VAR`` in the paths of its settings (``%include ~/$HGINC/hgrc``) from its
own environment, which holds the variables the line gives it (``HGINC=evil hg root`` ran the hook
of ~/evil/hgrc: proven here with hg 6.3 under bash and dash). The engine reads those paths with
the environment Echo Desk runs with (``hg_config.expanded``), where the line's variable is not
set; a line giving hg a variable is never allowed by ``hg **``, so the two readings never meet."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .hg_rules import HG_ANY_WRITES_OUT, judged_under

INCLUDE = "%include ~/$HGINC/hgrc\n"
HOOK = "[hooks]\npre-root = touch {}\n"


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_hg_expands_a_variable_of_the_line_in_its_settings(tmp_path: Path, shell: str) -> None:
    if shutil.which("hg") is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    pwned = tmp_path / "PWNED"
    (tmp_path / ".hgrc").write_text(INCLUDE, encoding="utf-8")
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "hgrc").write_text(HOOK.format(pwned), encoding="utf-8")
    subprocess.run(["hg", "init", "r"], cwd=tmp_path, check=True, capture_output=True, env={"HOME": str(tmp_path),
                                                                                             "PATH": "/usr/bin:/bin"})
    subprocess.run([shell, "-c", "HGINC=evil hg root"], cwd=tmp_path / "r", capture_output=True,
                   env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert pwned.exists()


@pytest.mark.parametrize("line", ["HGINC=evil hg root", "env HGINC=evil hg root", "export HGINC=evil; hg root"])
def test_a_variable_the_line_gives_hg_is_not_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    monkeypatch.delenv("HGINC", raising=False)
    (setup.home / ".hgrc").write_text(INCLUDE, encoding="utf-8")
    judged_under(setup, HG_ANY_WRITES_OUT + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[env|export] **"\n'
                        '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/evil/**"\n')
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
