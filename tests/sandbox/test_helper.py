"""Echo Desk's own helper programs (the reaper supervisor, the proxy forwarder) start from a
Python install and from the desktop bundle, where ``sys.executable`` is Echo Desk itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_helpers import requires_bwrap

from echo_desk.sandbox import forwarder, reaper
from echo_desk.sandbox.helper import helper_command

LAUNCHER = Path(__file__).resolve().parents[2] / "packaging" / "launcher.py"


def test_from_python_the_script_file_runs_isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "frozen", raising=False)
    command = helper_command(reaper.__name__, Path(reaper.__file__))
    assert command == [sys.executable, "-I", "-S", reaper.__file__]
    assert Path(command[-1]).is_file()


def test_in_the_bundle_the_launcher_runs_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert helper_command(forwarder.__name__, Path(forwarder.__file__)) == [
        sys.executable, "-m", "echo_desk.sandbox.forwarder"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper supervises on Linux")
def test_the_bundles_launcher_runs_the_reaper_as_the_bundle_would() -> None:
    # What the bundle runs: <echo-desk> -m echo_desk.sandbox.reaper -- PROGRAM; the launcher is
    # the bundle's entry script, here run by this Python.
    done = subprocess.run([sys.executable, str(LAUNCHER), "-m", reaper.__name__, "--", "sh", "-c", "echo hi; exit 3"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and done.stdout == "hi\n", done.stderr


def test_what_a_program_runs_from_under_tmp_stays_visible_and_nothing_else(tmp_path: Path) -> None:
    # The sandbox's /tmp is private; an approved server's script (or a venv) under /tmp must stay
    # visible read-only, but a path a shell command line names there stays hidden.
    import shutil
    import tempfile

    from echo_desk.sandbox import SandboxSpec, prepare

    own = Path(tempfile.mkdtemp(dir="/tmp", prefix="echo-desk-own-"))
    other = Path(tempfile.mkdtemp(dir="/tmp", prefix="echo-desk-other-"))
    try:
        (own / "server.py").write_text("print('hi')\n")
        (other / "secret.txt").write_text("x\n")
        spec = SandboxSpec(writable=(tmp_path,), cwd=tmp_path, runs_from=(str(own / "server.py"),))
        launch = prepare(spec, ["/bin/sh", "-c", f"cat {other / 'secret.txt'}"], "bwrap")
        launch.close()
        launch.release()  # never run: nothing may stay counted
        binds = {(launch.argv[i + 1], launch.argv[i + 2]) for i, a in enumerate(launch.argv) if a == "--ro-bind"}
        assert (str(own), str(own)) in binds
        assert not any(src.startswith(str(other)) for src, _ in binds)
    finally:
        shutil.rmtree(own)
        shutil.rmtree(other)


@requires_bwrap
def test_a_folder_of_tmp_the_program_runs_from_that_is_a_link_shows_no_hidden_place(tmp_path: Path) -> None:
    """``/tmp/x -> ~`` with the server's script in ``~/bin``: bwrap bound ``~`` itself at
    ``/tmp/x``, where no hidden place was hidden (tested: ``cat /tmp/x/.ssh/id_ed25519`` printed
    the key). The link is made again inside, and leads where the sandbox shows the disk."""
    import shutil
    import tempfile

    from echo_desk.sandbox import SandboxSpec, prepare

    home = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="echo-desk-home-"))
    link = Path(tempfile.mkdtemp(dir="/tmp", prefix="echo-desk-link-"))
    try:
        link.rmdir()
        link.symlink_to(home)
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_ed25519").write_text("tmp-link-key-canary\n")
        (home / "bin").mkdir()
        (home / "bin" / "server.sh").write_text("echo server-ran\n")
        spec = SandboxSpec(writable=(tmp_path,), cwd=tmp_path, home=home, runs_from=(str(link / "bin" / "server.sh"),),
                           guard_missing=False, check_after=False)
        command = ["/bin/sh", "-c", f"sh {link}/bin/server.sh; cat {link}/.ssh/id_ed25519"]
        launch = prepare(spec, command, shutil.which("bwrap") or "bwrap", seccomp_file=tmp_path / "seccomp.bpf")
        done = subprocess.run(launch.argv, env=launch.env, capture_output=True, text=True, timeout=60)
        assert "server-ran" in done.stdout, done.stderr
        assert "tmp-link-key-canary" not in done.stdout + done.stderr
    finally:
        link.unlink()
        shutil.rmtree(home)


def test_the_persons_library_path_is_passed_on_but_not_a_preload() -> None:
    from echo_desk.sandbox import allowed_environment

    env = allowed_environment({"LD_LIBRARY_PATH": "/opt/user-libs", "LD_PRELOAD": "/tmp/x.so", "PATH": "/bin"})
    assert env == {"LD_LIBRARY_PATH": "/opt/user-libs", "PATH": "/bin"}


def test_relative_and_empty_search_path_entries_are_dropped() -> None:
    from echo_desk.sandbox import allowed_environment

    env = allowed_environment({"PATH": ":./node_modules/.bin:/usr/bin::bin:/bin:.",
                               "LD_LIBRARY_PATH": "lib:/opt/user-libs:"})
    assert env == {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "/opt/user-libs"}
    # Nothing absolute left: the default search path, not an empty one (bash reads that as ".").
    assert allowed_environment({"PATH": ".:"})["PATH"] == "/usr/local/bin:/usr/bin:/bin"
