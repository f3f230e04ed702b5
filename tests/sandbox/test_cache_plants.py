"""Nothing a sandboxed command plants in a package cache or a per-user code folder of the home
folder runs later, when the person builds, installs or starts a program outside the sandbox.

The home folder as the workspace: each cache is the person's own, filled by an earlier build of
theirs. The tools check what they download (if at all) once, then use what they unpacked as it
is: a changed crate (its ``build.rs``) is built by ``cargo build --offline``, a changed module by
``go build`` though ``go.sum`` names it. Each attack is first shown to be real: the same change,
made by hand, does run.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import (
    MAVEN_PLUGIN,
    MAVEN_PLUGIN_POM,
    Jail,
    context,
    go_project_using_a_module,
    maven_plugin_jar,
    needs_maven,
    person_builds_and_runs_go,
    person_runs_maven_offline,
    planted_go_module,
    requires_bwrap,
    run,
    tool_with,
)
from sandbox_helpers import PERSONS_RUSTUP_HOME as _RUSTUP_HOME
from sandbox_helpers import planted_marker as _marker
from sandbox_helpers import planted_runs as _ran

pytestmark = requires_bwrap

needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo to show what it builds")
needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="needs go to show what it builds")


def _write(path: str, text: str) -> str:
    """A shell line writing ``text`` to ``path`` as it is (``printf %s`` reads no escapes in it)."""
    quoted = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
    return f'printf %s "{quoted}" > {path}'


async def _plant(jail: Jail, command: str) -> str:
    """``command`` run sandboxed with the home folder as the workspace; its output."""
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    return result.output


# --- Python: a .pth file in the person's own site-packages (~/.local/lib) ---------------------


def _plain_python() -> str:
    """A Python outside any virtual environment (one inside it ignores the user's site-packages)."""
    return getattr(sys, "_base_executable", "") or sys.executable


def _user_site(jail: Jail) -> Path:
    out = subprocess.run([_plain_python(), "-c", "import site; print(site.getusersitepackages())"],
                         env={"HOME": str(jail.home), "PATH": os.environ["PATH"]}, capture_output=True, text=True,
                         check=True, timeout=60)
    return Path(out.stdout.strip())


def _person_starts_python(jail: Jail) -> None:
    subprocess.run([_plain_python(), "-c", "pass"], env={"HOME": str(jail.home), "PATH": os.environ["PATH"]},
                   capture_output=True, timeout=60)


def _pth(jail: Jail) -> str:
    return f"import os; open({str(_marker(jail))!r}, 'a').write('ran\\n')\n"


def test_a_pth_file_written_by_hand_in_the_users_site_packages_runs_at_every_python(jail: Jail) -> None:
    site = _user_site(jail)
    site.mkdir(parents=True, exist_ok=True)
    (site / "zz.pth").write_text(_pth(jail))
    _person_starts_python(jail)
    assert _ran(jail) == 1


@pytest.mark.parametrize("existed", [False, True], ids=["new site-packages", "existing site-packages"])
async def test_a_pth_file_planted_in_the_users_site_packages_never_runs(jail: Jail, existed: bool) -> None:
    site = _user_site(jail)
    if existed:
        site.mkdir(parents=True)
    relative = site.relative_to(jail.home)
    output = await _plant(jail, f"mkdir -p {relative} && " + _write(f"{relative}/zz.pth", _pth(jail)))
    _person_starts_python(jail)
    assert _ran(jail) == 0, output


# --- cargo: a crate unpacked in ~/.cargo/registry -----------------------------------------------


def _crate(files: dict[str, str]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, text in files.items():
            body = text.encode()
            info = tarfile.TarInfo(f"tinylib-0.1.0/{name}")
            info.size, info.mtime, info.mode = len(body), 1_000_000_000, 0o644
            tar.addfile(info, io.BytesIO(body))
    return data.getvalue()


@pytest.fixture
def cargo_project(jail: Jail) -> Path:
    """The person's Rust project, depending on a crate of a registry (a local one, for crates.io:
    the person's settings say so), built once: the crate is unpacked in ``~/.cargo/registry/src``."""
    registry = jail.base / "registry"
    (registry / "index/ti/ny").mkdir(parents=True)
    crate = _crate({"Cargo.toml": '[package]\nname = "tinylib"\nversion = "0.1.0"\nedition = "2021"\n',
                    "src/lib.rs": "pub fn hello() {}\n"})
    (registry / "tinylib-0.1.0.crate").write_bytes(crate)
    (registry / "index/ti/ny/tinylib").write_text(json.dumps(
        {"name": "tinylib", "vers": "0.1.0", "deps": [], "cksum": hashlib.sha256(crate).hexdigest(),
         "features": {}, "yanked": False}) + "\n")
    (jail.home / ".cargo").mkdir(parents=True)
    (jail.home / ".cargo/config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "mine"\n[source.mine]\nlocal-registry = "{registry}"\n')
    project = jail.base / "app"
    (project / "src").mkdir(parents=True)
    (project / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                        '[dependencies]\ntinylib = "0.1"\n')
    (project / "src/main.rs").write_text("fn main() { tinylib::hello() }\n")
    assert _cargo(jail, project, "build").returncode == 0
    return project


def _cargo(jail: Jail, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "RUSTUP_HOME": _RUSTUP_HOME,
           "CARGO_HOME": str(jail.home / ".cargo"), "RUST_BACKTRACE": "0"}
    return subprocess.run(["cargo", *args, "--offline", "-q"], cwd=project, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)


def _person_builds_again(jail: Jail, project: Path) -> None:
    _cargo(jail, project, "clean")
    _cargo(jail, project, "build")


def _build_script(jail: Jail) -> str:
    return f'fn main() {{ std::fs::write("{_marker(jail)}", "ran\\n").unwrap(); }}\n'


@needs_cargo
def test_a_build_script_added_by_hand_to_an_unpacked_crate_runs_at_the_next_build(
        jail: Jail, cargo_project: Path) -> None:
    (unpacked,) = (jail.home / ".cargo/registry/src").glob("*/tinylib-0.1.0")
    (unpacked / "build.rs").write_text(_build_script(jail))
    _person_builds_again(jail, cargo_project)
    assert _ran(jail) == 1


@needs_cargo
async def test_a_build_script_planted_in_an_unpacked_crate_never_runs(jail: Jail, cargo_project: Path) -> None:
    output = await _plant(jail, "cd .cargo/registry/src/*/tinylib-0.1.0 && " + _write("build.rs", _build_script(jail)))
    _person_builds_again(jail, cargo_project)
    assert _ran(jail) == 0, output


# --- go: a module unpacked in ~/go/pkg/mod --------------------------------------------------------


@pytest.fixture
def go_project(jail: Jail) -> Iterator[Path]:
    """The person's Go project, using a module (from a proxy of files), built once: the module is
    unpacked in ``~/go/pkg/mod`` and named in ``go.sum``."""
    project = go_project_using_a_module(jail, gopath=jail.home / "go")
    yield project
    # go leaves its module cache read-only: make it removable again.
    subprocess.run(["chmod", "-R", "u+w", str(jail.home / "go"), str(jail.base / "go-build"), str(jail.base / "go-build-again")],
                   capture_output=True)


_MODULE = "go/pkg/mod/example.com/lib@v1.0.0"


@needs_go
def test_a_module_changed_by_hand_in_gos_module_cache_runs_at_the_next_build(jail: Jail, go_project: Path) -> None:
    module = jail.home / _MODULE
    module.chmod(0o755)
    (module / "lib.go").chmod(0o644)
    (module / "lib.go").write_text(planted_go_module(jail))
    person_builds_and_runs_go(jail, go_project, gopath=jail.home / "go")
    assert _ran(jail) == 1


@needs_go
async def test_a_module_changed_in_gos_module_cache_by_a_command_never_runs(jail: Jail, go_project: Path) -> None:
    output = await _plant(jail, f"chmod u+w {_MODULE} {_MODULE}/lib.go; " + _write(f"{_MODULE}/lib.go", planted_go_module(jail)))
    person_builds_and_runs_go(jail, go_project, gopath=jail.home / "go")
    assert _ran(jail) == 0, output


# --- Maven: a plugin's jar in ~/.m2/repository ------------------------------------------------

@pytest.fixture
def maven_plugin(jail: Jail) -> Path:
    return maven_plugin_jar(jail, jail.home / ".m2/repository")


@needs_maven
def test_a_plugin_jar_put_by_hand_in_mavens_local_repository_runs_at_mvn_offline(jail: Jail, maven_plugin: Path) -> None:
    folder = jail.home / ".m2/repository" / MAVEN_PLUGIN
    folder.mkdir(parents=True)
    shutil.copy(maven_plugin, folder)
    (folder / "hello-maven-plugin-1.0.pom").write_text(MAVEN_PLUGIN_POM)
    person_runs_maven_offline(jail)
    assert _ran(jail) == 1


@needs_maven
async def test_a_plugin_jar_planted_in_mavens_local_repository_never_runs(jail: Jail, maven_plugin: Path) -> None:
    folder = f".m2/repository/{MAVEN_PLUGIN}"
    output = await _plant(jail, f"mkdir -p {folder} && cp {maven_plugin} {folder}/ && "
                                + _write(f"{folder}/hello-maven-plugin-1.0.pom", MAVEN_PLUGIN_POM))
    person_runs_maven_offline(jail)
    assert _ran(jail) == 0, output


# --- virtualenv: the pip it unpacked in ~/.local/share/virtualenv --------------------------------

needs_virtualenv = pytest.mark.skipif(shutil.which("virtualenv") is None, reason="needs virtualenv to show what it copies")


def _virtualenv(jail: Jail, name: str) -> None:
    """``virtualenv`` as the person runs it (with the wheels it ships: no network)."""
    subprocess.run(["virtualenv", "-q", "--no-periodic-update", "--python", _plain_python(), str(jail.base / name)],
                   env={"PATH": os.environ["PATH"], "HOME": str(jail.home)}, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=300, check=True)


@pytest.fixture
def unpacked_pip(jail: Jail) -> Path:
    """The person made an environment once: virtualenv unpacked its pip in its folder of the home folder."""
    _virtualenv(jail, "first")
    (pip,) = (jail.home / ".local/share/virtualenv").glob("wheel/*/image/*/*/pip-*-none-any")
    return pip


def _person_makes_an_environment_and_starts_python(jail: Jail) -> None:
    _virtualenv(jail, "next")
    subprocess.run([str(jail.base / "next/bin/python"), "-c", "pass"], env={"PATH": os.environ["PATH"]},
                   capture_output=True, timeout=60)


@needs_virtualenv
def test_a_pth_file_added_by_hand_to_virtualenvs_pip_runs_in_every_new_environment(
        jail: Jail, unpacked_pip: Path) -> None:
    (unpacked_pip / "zz.pth").write_text(_pth(jail))
    _person_makes_an_environment_and_starts_python(jail)
    assert _ran(jail) >= 1


@needs_virtualenv
async def test_a_pth_file_planted_in_virtualenvs_pip_never_runs(jail: Jail, unpacked_pip: Path) -> None:
    output = await _plant(jail, _write(f"{unpacked_pip.relative_to(jail.home)}/zz.pth", _pth(jail)))
    _person_makes_an_environment_and_starts_python(jail)
    assert _ran(jail) == 0, output


# --- per-user folders of code added to the list --------------------------------------------------

#: Each added folder, and a file in it that runs later: a Neovim plugin loaded at every start (nvim
#: is not installed here: what stays is checked, not that it runs), a composer global package's
#: program (on PATH), a Flatpak export standing in for a D-Bus service of the system's, and an
#: app's permission override.
_ADDED = [".local/share/nvim/site/pack/x/start/p/plugin/p.lua", ".config/composer/vendor/bin/phpunit",
          ".composer/vendor/bin/phpunit",
          ".local/share/flatpak/exports/share/dbus-1/services/org.freedesktop.Notifications.service",
          ".local/share/flatpak/overrides/global"]


@pytest.mark.parametrize("path", _ADDED)
async def test_code_planted_in_a_per_user_folder_of_the_home_folder_does_not_stay(jail: Jail, path: str) -> None:
    folder = path.rsplit("/", 1)[0]
    output = await _plant(jail, f"mkdir -p {folder} && echo planted > {path}")
    assert not (jail.home / path).exists(), output
