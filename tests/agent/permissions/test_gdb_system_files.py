"""s193: gdb runs code from its install at every start, whatever the folder it runs in: the
system's init files (``/etc/gdb/gdbinit`` and the ``.gdb``/``.py`` files of
``/etc/gdb/gdbinit.d``, skipped by ``-nx``), its own python package in its data directory
(``/usr/share/gdb/python/gdb``: a module put in its ``command/`` folder runs, ``-nx`` too) and
the auto-load scripts of its data directory and of its debug folder (``/usr/lib/debug``: both
are gdb's default auto-load safe-path, so they run without any setting of the person's). The
data directory and the debug folder move with the program file (``gdb --configuration``:
"relocatable"; a copy in ``p/bin/`` reads ``p/share/gdb`` and ``p/lib/debug``). The engine
judged only what the init files name: with the agent allowed to write one of these places, a
rule ``gdb **`` was a rule for whatever it put there.

Proven here with gdb 13 under bash and dash: the system's files in a scratch folder mounted over
/etc/gdb for the one command (bubblewrap), the install folders beside a copy of gdb."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.gdb_init import install_folders

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

_SHELL = {"bash": ["bash", "--noprofile", "--norc", "-c"], "dash": ["dash", "-c"]}


def _needs(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def _run(shell: str, line: str, cwd: Path, *, over: tuple[Path, str] | None = None) -> None:
    argv = [*_SHELL[shell], line]
    if over is not None:
        argv = ["bwrap", "--dev-bind", "/", "/", "--bind", str(over[0]), over[1], *argv]
    subprocess.run(argv, cwd=cwd, env={"HOME": str(cwd), "PATH": "/usr/bin:/bin"}, capture_output=True,
                   timeout=120, check=False)


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("name", ["../gdbinit", "x.gdb", "x.py"])
def test_gdb_runs_the_systems_init_files(tmp_path: Path, shell: str, name: str) -> None:
    _needs("gdb", "bwrap", shell)
    etc = tmp_path / "etc"
    (etc / "gdbinit.d").mkdir(parents=True)
    pwned = tmp_path / "PWNED"
    code = f'import os\nos.system("touch {pwned}")\n' if name.endswith(".py") else f"shell touch {pwned}\n"
    (etc / "gdbinit.d" / name).write_text(code, encoding="utf-8")
    _run(shell, "gdb -batch", tmp_path, over=(etc, "/etc/gdb"))
    assert pwned.exists()


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("where", ["share/gdb/python/gdb/command/x.py", "lib/debug/usr/bin/true-gdb.py"])
def test_gdb_runs_the_code_of_its_data_directory_and_debug_folder(tmp_path: Path, shell: str, where: str) -> None:
    _needs("gdb", shell)
    gdb = Path(shutil.which("gdb") or "")
    data = Path("/usr/share/gdb")
    if gdb.resolve().parent.parent != Path("/usr") or not (data / "python").is_dir():
        pytest.skip("gdb is not installed below /usr with its python package")
    prefix = tmp_path / "p"
    (prefix / "bin").mkdir(parents=True)
    shutil.copy(gdb, prefix / "bin" / "gdb")
    shutil.copytree(data, prefix / "share" / "gdb", symlinks=True)
    pwned = tmp_path / "PWNED"
    script = prefix / where
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f'import os\nos.system("touch {pwned}")\n', encoding="utf-8")
    _run(shell, "p/bin/gdb -nx -batch /usr/bin/true", tmp_path)
    assert pwned.exists()


@pytest.mark.parametrize(("writable", "line"), [
    ("//etc/gdb/gdbinit", "gdb -batch"),
    ("//etc/gdb/gdbinit.d/**", "gdb -batch"),
    ("//etc/gdb/**", "~/.local/bin/gdb -batch"),  # (not relocatable: every gdb reads them)
    ("//usr/share/gdb/python/**", "gdb -nx -batch"),
    ("//usr/lib/debug/**", "gdb -nx -batch"),
    ("~/.local/share/**", "~/.local/bin/gdb -nx -batch"),
    ("~/.local/lib/**", "~/.local/bin/gdb -nx -batch"),
    ("@workspace/p/share/**", "p/bin/gdb -nx -batch"),
])
def test_gdb_code_the_agent_may_write_asks(setup: Setup, writable: str, line: str) -> None:
    setup.write_user_rules(_rules("gdb **", "~/.local/bin/gdb **", "p/bin/gdb **") + _rules(writable, tool="write"))
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize(("writable", "line"), [
    ("~/.local/share/**", "gdb -batch"),  # (gdb from PATH, not from ~/.local/bin)
    ("//usr/share/doc/**", "gdb -nx -batch"),
    ("@workspace/p/share/**", "~/.local/bin/gdb -nx -batch"),
])
def test_other_folders_leave_the_rule_in_force(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                               writable: str, line: str) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    setup.write_user_rules(_rules("gdb **", "~/.local/bin/gdb **", "p/bin/gdb **") + _rules(writable, tool="write"))
    assert _effect(setup, line) is Effect.ALLOW


def test_the_install_folders_follow_the_program_as_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nowhere/bin")
    cwd, home = Path("/w"), Path("/h")
    assert install_folders("gdb", [cwd], home) == [Path("/usr/share/gdb"), Path("/usr/lib/debug"),
                                                   Path("/nowhere/share/gdb"), Path("/nowhere/lib/debug")]
    assert install_folders("~/opt/bin/gdb", [cwd], home)[2:] == [Path("/h/opt/share/gdb"), Path("/h/opt/lib/debug")]
    assert install_folders("tools/bin/gdb", [cwd], home)[2:] == [Path("/w/tools/share/gdb"), Path("/w/tools/lib/debug")]
