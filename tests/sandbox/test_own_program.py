"""Echo Desk's own program inside a workspace (a checkout of Echo Desk with its ``.venv``, or
the home folder as the workspace with a pipx or uv install under it): what a command writes into
the virtual environment Echo Desk runs from runs at Echo Desk's next start, with all its trust.

A ``.pth`` file in its ``site-packages`` is run by every start of that Python, and nothing shows
it (``.venv`` is not in ``git status``). Each test first shows the plant really runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.store import own_files, paths
from echo_desk.tools import ProtectionReason

pytestmark = requires_bwrap


@pytest.fixture
def own_venv(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtual environment inside the workspace that stands for the one Echo Desk runs from."""
    venv = jail.workspace / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    monkeypatch.setattr(paths, "own_program", lambda: (jail.base / "echo_desk_package", venv))
    return venv


def _site_packages(venv: Path) -> Path:
    return next(venv.glob("lib/python3*/site-packages"))


def _plant(jail: Jail, venv: Path, *, hidden: bool = False) -> str:
    """A command writing a ``.pth`` file; ``hidden``: with a path no word of the line names (the
    shell's check of the line cannot see it; only the sandbox stands in the way)."""
    pth = _site_packages(venv).relative_to(jail.workspace) / "zz_planted.pth"
    where = "$(ls -d .v*/lib/python3*/site-packages)/zz_planted.pth" if hidden else str(pth)
    return f"printf 'import os; open(\"{jail.base}/planted-ran\", \"a\").write(\"ran\\\\n\")\\n' > {where}"


def _starts(venv: Path) -> None:
    """Echo Desk's next start, as far as its Python goes."""
    subprocess.run([str(venv / "bin" / "python"), "-c", "pass"], check=True, timeout=60)


def test_a_pth_file_written_by_hand_runs_when_its_python_starts(jail: Jail, own_venv: Path) -> None:
    subprocess.run(["bash", "-c", _plant(jail, own_venv)], cwd=jail.workspace, check=True)
    _starts(own_venv)
    assert "ran" in (jail.base / "planted-ran").read_text()  # once per site folder (lib64 is a link to lib)


async def test_a_sandboxed_command_cannot_plant_in_echo_desks_own_environment(jail: Jail, own_venv: Path) -> None:
    result = await run(tool_with(), {"command": _plant(jail, own_venv, hidden=True)}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "Read-only file system" in result.output
    assert not (_site_packages(own_venv) / "zz_planted.pth").exists(), result.output
    _starts(own_venv)
    assert not (jail.base / "planted-ran").exists()


async def test_a_workspace_inside_echo_desks_own_environment_is_read_only(jail: Jail, own_venv: Path) -> None:
    site = _site_packages(own_venv)
    result = await run(tool_with(), {"command": "echo x > zz_planted.pth"}, context(site))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "Read-only file system" in result.output
    assert not (site / "zz_planted.pth").exists()


async def test_the_rest_of_the_workspace_stays_writable_beside_it(jail: Jail, own_venv: Path) -> None:
    result = await run(tool_with(), {"command": "echo made > made.txt"}, context(jail.workspace))
    assert result.success, result.output
    assert (jail.workspace / "made.txt").read_text() == "made\n"


@pytest.mark.parametrize("spelling", ["relative", "absolute", "through a link"])
async def test_a_command_outside_the_sandbox_writing_there_needs_the_persons_own_approval(
        jail: Jail, own_venv: Path, spelling: str) -> None:
    site = _site_packages(own_venv)
    if spelling == "through a link":
        (jail.workspace / "lib-link").symlink_to(site)
        target = "lib-link/zz.pth"
    else:
        target = str(site / "zz.pth") if spelling == "absolute" else str((site / "zz.pth").relative_to(jail.workspace))
    preview = await tool_with().preview({"command": f"echo x > {target}", "outside_sandbox": True},
                                        context(jail.workspace))
    marked = [(t.value, p) for t in preview.targets for p in t.protections if p.reason is ProtectionReason.RUNS_CODE]
    assert any(value == str(own_venv) for value, _ in marked), preview.targets  # the jail is a real path


@pytest.fixture
def linked_own_module(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A module of Echo Desk's own environment (outside the workspace) and a project's ``.venv``
    in the workspace holding a second name of the same file, as uv links both to its cache."""
    own_venv = jail.base / "own-venv"
    own = own_venv / "lib" / "python3" / "site-packages" / "shared_mod.py"
    own.parent.mkdir(parents=True)
    own.write_text("VALUE = 1\n")
    project = jail.workspace / ".venv" / "lib" / "python3" / "site-packages" / "shared_mod.py"
    project.parent.mkdir(parents=True)
    os.link(own, project)
    monkeypatch.setattr(paths, "own_program", lambda: (jail.base / "echo_desk_package", own_venv))
    return own, project


_APPEND = "echo 'import os; os.system(\"touch PWNED\")' >> .venv/lib/python3/site-packages/shared_mod.py"


def test_a_write_through_the_projects_name_changes_echo_desks_own_module(
        jail: Jail, linked_own_module: tuple[Path, Path]) -> None:
    own, _project = linked_own_module
    subprocess.run(["bash", "-c", _APPEND], cwd=jail.workspace, check=True)
    assert "os.system" in own.read_text()  # the harm: Echo Desk's own code, changed from the workspace


async def test_a_sandboxed_command_cannot_change_echo_desks_own_module_through_a_hard_link(
        jail: Jail, linked_own_module: tuple[Path, Path]) -> None:
    own, project = linked_own_module
    mtime = own.stat().st_mtime_ns
    result = await run(tool_with(), {"command": _APPEND}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True and result.success, result.output
    assert own.read_text() == "VALUE = 1\n" and own.stat().st_nlink == 1 and own.stat().st_mtime_ns == mtime
    assert "os.system" in project.read_text()  # the project's own file is the project's to change


async def test_when_a_linked_own_file_cannot_be_copied_no_sandboxed_command_runs(
        jail: Jail, linked_own_module: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(own_files.shutil, "copyfileobj", disk_full)
    result = await run(tool_with(), {"command": "touch ran"}, context(jail.workspace))
    assert not result.success and "nothing was run" in result.error and "No space left" in result.error
    assert not (jail.workspace / "ran").exists()
    own, _project = linked_own_module
    assert own.stat().st_nlink == 2 and not list(own.parent.glob("*.echo-desk-copy"))  # nothing half done
    monkeypatch.undo()  # the disk has room again: the next command gets the copy made first
    monkeypatch.setattr(paths, "own_program", lambda: (jail.base / "echo_desk_package", jail.base / "own-venv"))
    result = await run(tool_with(), {"command": "touch ran"}, context(jail.workspace))
    assert result.success and own.stat().st_nlink == 1
