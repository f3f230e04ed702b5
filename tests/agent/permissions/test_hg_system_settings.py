"""s174: hg reads the system's settings from ``etc/mercurial`` below ``/`` and below the folder
above its program's folder, as it was started (``scmposix.systemrcpath``: /usr/bin/hg reads
/usr/etc/mercurial/hgrc and its hgrc.d/*.rc). A hook there runs under any hg command: with the
agent allowed to write ``~/.local/etc``, a rule for hg was a rule for whatever the agent put in
``~/.local/etc/mercurial/hgrc.d/`` when hg is ``~/.local/bin/hg``. The engine read only
/etc/mercurial, and judged neither place as one the agent may write: only what it names.

Proven here with hg 6.3 under bash and dash (a copy of the hg program in a folder of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.hg_config import system_folders

from .conftest import Setup

HOOK = "[hooks]\npre-status = touch {}\n"


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_hg_runs_the_hooks_of_the_settings_beside_its_program(tmp_path: Path, shell: str) -> None:
    hg = shutil.which("hg")
    if hg is None or shutil.which(shell) is None:
        pytest.skip(f"hg or {shell} is not installed")
    prefix = tmp_path / "p"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "etc" / "mercurial" / "hgrc.d").mkdir(parents=True)
    shutil.copy(hg, prefix / "bin" / "hg")
    pwned = tmp_path / "PWNED"
    (prefix / "etc" / "mercurial" / "hgrc.d" / "x.rc").write_text(HOOK.format(pwned), encoding="utf-8")
    repo = tmp_path / "r"
    repo.mkdir()
    env = {"HOME": str(tmp_path), "PATH": f"{prefix / 'bin'}:/usr/bin:/bin"}
    subprocess.run(["hg", "init"], cwd=repo, check=True, capture_output=True, env=env)
    argv = [shell, "--noprofile", "--norc", "-c"] if shell == "bash" else [shell, "-c"]
    subprocess.run([*argv, "hg status"], cwd=repo, check=True, capture_output=True, env=env)
    assert pwned.exists()


def _rules(setup: Setup, writable: str) -> None:
    setup.write_user_rules(f"""
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg|venv/bin/hg|bin/hg] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "{writable}"
""")
    setup.engine.refresh()


@pytest.mark.parametrize(("writable", "line"), [
    ("~/.local/etc/**", "hg status"),  # (hg found in ~/.local/bin)
    ("~/.local/etc/mercurial/hgrc.d/**", "hg version"),
    ("//etc/mercurial/hgrc.d/**", "hg status"),  # (/etc/mercurial itself was read, not judged)
    ("@workspace/venv/etc/**", "venv/bin/hg status"),
    ("@workspace/etc/**", "bin/hg status"),  # (hg takes the folder above bin/ from the path as written)
])
def test_the_system_settings_the_agent_may_write_ask(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                     writable: str, line: str) -> None:
    monkeypatch.setenv("PATH", f"{setup.home}/.local/bin:/usr/bin:/bin")
    _rules(setup, writable)
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


@pytest.mark.parametrize(("writable", "line"), [
    ("~/.local/share/**", "hg status"),
    ("@workspace/venv/etc/**", "hg status"),  # (hg from PATH does not read the workspace's venv)
    ("~/.local/etc/**", "venv/bin/hg status"),
])
def test_other_folders_leave_the_rule_in_force(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                               writable: str, line: str) -> None:
    monkeypatch.setenv("PATH", f"{setup.home}/.local/bin:/usr/bin:/bin")
    _rules(setup, writable)
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW


def test_the_system_folders_follow_the_program_as_started(monkeypatch: pytest.MonkeyPatch) -> None:
    # (run_command's search path keeps only the absolute entries: hg is never started from the
    # folder the command runs in, "" and tools/bin)
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/local/bin", "/bin", "", "tools/bin"]))
    cwd = Path("/w")
    assert system_folders("hg", [cwd]) == [Path("/etc/mercurial"), Path("/usr/local/etc/mercurial")]
    assert system_folders("/opt/hg/bin/hg", [cwd]) == [Path("/etc/mercurial"), Path("/opt/hg/etc/mercurial")]
    assert system_folders("./hg", [cwd]) == [Path("/etc/mercurial"), Path("/w/etc/mercurial")]
