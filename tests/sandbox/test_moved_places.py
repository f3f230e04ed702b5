"""Nothing a sandboxed command plants where the person's environment moves a protected place runs
later outside the sandbox (``echo_desk.sandbox.moved``).

With ``XDG_CONFIG_HOME`` or ``CARGO_HOME`` pointing into the workspace, git reads its global
settings, and cargo its settings and unpacked crates, from there: the place is as much the
person's own as ``~/.config/git`` or ``~/.cargo`` is. Each attack is first shown to be real: the
same file, written by hand, does run when the person next uses the tool.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import PERSONS_RUSTUP_HOME as _RUSTUP_HOME
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with
from sandbox_helpers import planted_marker as _marker
from sandbox_helpers import planted_runs as _ran

from echo_desk.sandbox import inventory, moved, runs_code

pytestmark = requires_bwrap

needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to show what it runs")


async def _plant(jail: Jail, command: str, cwd: Path | None = None) -> str:
    result = await run(tool_with(), {"command": command}, context(cwd or jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    return result.output


# --- git: its global settings under a moved XDG_CONFIG_HOME -----------------------------------


def _fsmonitor(jail: Jail) -> str:
    """git settings whose fsmonitor hook (a shell command) runs at every ``git status``."""
    return f"[core]\n\tfsmonitor = \"echo ran >> {_marker(jail)}; false\"\n"


def _person_runs_git_status(jail: Jail, config_home: str, cwd: Path) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "XDG_CONFIG_HOME": config_home,
           "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "status"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_git_settings_written_by_hand_under_a_moved_config_folder_run_at_git_status(jail: Jail) -> None:
    config_home = jail.workspace / "cfg"
    (config_home / "git").mkdir(parents=True)
    (config_home / "git/config").write_text(_fsmonitor(jail))
    _person_runs_git_status(jail, str(config_home), jail.workspace)
    assert _ran(jail) >= 1


@pytest.mark.parametrize("existed", [False, True], ids=["new", "existing"])
async def test_git_settings_planted_under_a_config_folder_the_environment_moves_into_the_workspace_never_run(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, existed: bool) -> None:
    config_home = jail.workspace / "cfg"
    if existed:
        (config_home / "git").mkdir(parents=True)
        (config_home / "git/config").write_text("[user]\n\tname = me\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    output = await _plant(jail, f"mkdir -p cfg/git && printf '%s' '{_fsmonitor(jail)}' > cfg/git/config")
    _person_runs_git_status(jail, str(config_home), jail.workspace)
    assert _ran(jail) == 0, output
    if existed:
        assert (config_home / "git/config").read_text() == "[user]\n\tname = me\n"


@pytest.fixture
def project(jail: Jail) -> Path:
    """A repository in the workspace, with a sub-folder, where the person runs git."""
    folder = jail.workspace / "project"
    (folder / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True, timeout=60)
    return folder


#: A relative value, and where git run in the project takes it to be (from the workspace).
_RELATIVE = [("cfg", "project/cfg"), ("~/cfg", "project/~/cfg"), ("../cfg", "cfg"), ("./sub/../cfg", "project/cfg")]


@pytest.mark.parametrize(("value", "where"), _RELATIVE, ids=[v for v, _ in _RELATIVE])
async def test_git_settings_planted_under_a_relative_config_folder_never_run(
        jail: Jail, project: Path, monkeypatch: pytest.MonkeyPatch, value: str, where: str) -> None:
    """A relative value names a folder below wherever git runs (git takes ``~`` as a folder's
    name): it cannot be placed, so it stands for every folder of the workspace (fail closed)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", value)
    output = await _plant(jail, f"mkdir -p '{where}/git' && printf '%s' '{_fsmonitor(jail)}' > '{where}/git/config'")
    _person_runs_git_status(jail, value, project)
    assert _ran(jail) == 0, output


# --- cargo: its settings and its registry under a moved CARGO_HOME -----------------------------


def _cargo(jail: Jail, project: Path, cargo_home: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "RUSTUP_HOME": _RUSTUP_HOME,
           "CARGO_HOME": cargo_home, "RUST_BACKTRACE": "0"}
    return subprocess.run(["cargo", *args, "--offline", "-q"], cwd=project, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def rust_project(jail: Jail) -> Path:
    project = jail.workspace / "app"
    (project / "src").mkdir(parents=True)
    (project / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n')
    (project / "src/main.rs").write_text("fn main() {}\n")
    return project


def _wrapper_settings(jail: Jail) -> tuple[str, str]:
    """A wrapper script (in the workspace: ordinary content) and cargo settings naming it: cargo
    runs it for ``rustc -vV`` even at ``cargo metadata``, which builds nothing."""
    script = f"#!/bin/sh\necho ran >> {_marker(jail)}\nexec \"$@\"\n"
    return script, '[build]\nrustc-wrapper = "WRAPPER"\n'


def _person_runs_cargo_metadata(jail: Jail, project: Path, cargo_home: str) -> None:
    _cargo(jail, project, cargo_home, "metadata", "--format-version", "1")


@needs_cargo
def test_cargo_settings_written_by_hand_in_a_moved_cargo_home_run_a_wrapper_at_cargo_metadata(
        jail: Jail, rust_project: Path) -> None:
    cargo_home = jail.workspace / "cargo-home"
    cargo_home.mkdir()
    script, settings = _wrapper_settings(jail)
    (jail.workspace / "wrap.sh").write_text(script)
    (jail.workspace / "wrap.sh").chmod(0o755)
    (cargo_home / "config.toml").write_text(settings.replace("WRAPPER", str(jail.workspace / "wrap.sh")))
    _person_runs_cargo_metadata(jail, rust_project, str(cargo_home))
    assert _ran(jail) >= 1


@needs_cargo
@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
async def test_cargo_settings_planted_in_a_cargo_home_the_environment_moves_into_the_workspace_never_run(
        jail: Jail, rust_project: Path, monkeypatch: pytest.MonkeyPatch, relative: bool) -> None:
    # Relative: cargo takes it from the folder it runs in (the project).
    cargo_home = "cargo-home" if relative else str(jail.workspace / "cargo-home")
    folder = "app/cargo-home" if relative else "cargo-home"
    monkeypatch.setenv("CARGO_HOME", cargo_home)
    script, settings = _wrapper_settings(jail)
    wrapper = jail.workspace / "wrap.sh"
    output = await _plant(jail, f"printf '%s' '{script}' > wrap.sh && chmod +x wrap.sh && mkdir -p {folder} && "
                                f"printf '%s' '{settings.replace('WRAPPER', str(wrapper))}' > {folder}/config.toml")
    _person_runs_cargo_metadata(jail, rust_project, cargo_home)
    assert _ran(jail) == 0, output


# --- the table itself ----------------------------------------------------------------------------


def test_every_variable_moves_an_entry_of_the_list() -> None:
    """A variable of the table that moved nothing would be a place left unprotected (or shown) by
    a typo: each moves an entry of the protected list or a hidden place (``test_moved_secrets``)."""
    empty = [m for m in moved.MOVERS if not moved.moves_anything(m)]
    assert empty == []


def test_a_moved_place_is_protected_as_well_as_the_default_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = home / "work"
    for folder in (home / ".cargo/registry", work / ".cargo/registry", work / "cfg/nvim"):
        folder.mkdir(parents=True)
    environ = {"CARGO_HOME": str(work / ".cargo"), "XDG_CONFIG_HOME": "~/work/cfg"}
    watched = {w.path: w for w in inventory.take(work, home=home, environs=(environ,)).watched}
    assert watched[f"{work}/.cargo/registry"].mounted
    assert watched[f"{work}/cfg/nvim"].mounted
    assert watched[f"{work}/.cargo/config.toml"].why == runs_code.ENTRIES[
        [e.path for e in runs_code.ENTRIES].index(".cargo/config.toml")].why
    in_home = {w.path for w in inventory.take(home, home=home, environs=(environ,)).watched}
    assert f"{home}/.cargo/registry" in in_home and f"{work}/.cargo/registry" in in_home


def test_the_home_folders_places_are_protected_in_a_workspace_inside_it(tmp_path: Path) -> None:
    """``~/.config`` or ``~/.cargo`` opened as the workspace holds the places themselves."""
    home = tmp_path / "home"
    (home / ".cargo/registry").mkdir(parents=True)
    (home / ".config/nvim").mkdir(parents=True)
    cargo = {w.path for w in inventory.take(home / ".cargo", home=home, environs=({},)).watched if w.mounted}
    config = {w.path for w in inventory.take(home / ".config", home=home, environs=({},)).watched if w.mounted}
    assert f"{home}/.cargo/registry" in cargo
    assert f"{home}/.config/nvim" in config



def test_ccaches_folder_and_settings_file_are_protected_where_its_variables_move_them(tmp_path: Path) -> None:
    """``CCACHE_DIR`` holds ccache's settings (programs it runs at every compile) and its cache;
    ``CCACHE_CONFIGPATH`` names the settings file alone: inside the workspace, each is watched."""
    home = tmp_path / "home"
    work = home / "work"
    (work / "cc-cache").mkdir(parents=True)
    (work / "cc.conf").write_text("max_size = 1G\n")
    environ = {"CCACHE_DIR": str(work / "cc-cache"), "CCACHE_CONFIGPATH": "~/work/cc.conf"}
    watched = {w.path: w for w in inventory.take(work, home=home, environs=(environ,)).watched}
    assert watched[f"{work}/cc-cache"].mounted
    assert watched[f"{work}/cc.conf"].mounted
