"""One Echo Desk per person: a second launch brings the first forward and exits; a lock or a
socket left by a crashed first instance does not block the start. Real ``flock``,
``QLocalServer``/``QLocalSocket``, in one process and across two real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QDir, QTimer
from PySide6.QtWidgets import QMainWindow

from echo_desk.ui.app.single_instance import SingleInstance, server_name
from echo_desk.ui.core.desktop_notify import bring_forward

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def name() -> str:
    return f"echo-desk-test-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def lock(tmp_path: Path) -> Path:
    return tmp_path / "instance.lock"


def test_the_second_instance_defers_and_the_first_is_asked_to_come_forward(qtbot, name, lock) -> None:
    first = SingleInstance(name, lock)
    assert first.claim()
    first.listen()
    try:
        with qtbot.waitSignal(first.activated, timeout=5000):
            second = SingleInstance(name, lock)
            assert not second.claim()
        assert second.answered
    finally:
        first.close()
    third = SingleInstance(name, lock)  # the first closed: its lock went with it
    assert third.claim()
    third.close()


def test_a_second_launch_while_the_first_is_still_starting_waits_for_it(qtbot, name, lock) -> None:
    # The first holds the lock from before its first frame but listens only after it.
    first = SingleInstance(name, lock)
    assert first.claim()
    QTimer.singleShot(300, first.listen)
    try:
        # The second launch blocks the thread while it retries, so the first's timer cannot fire:
        # run it in another process, as a real second launch is.
        env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
        proc = subprocess.Popen([sys.executable, "-c", SECOND_LAUNCH, name, str(lock)], env=env, cwd=REPO)
        with qtbot.waitSignal(first.activated, timeout=20000):
            pass
        assert proc.wait(timeout=20) == 3
    finally:
        first.close()


def test_a_lock_left_by_a_killed_instance_does_not_block_the_start(name, lock) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, name, str(lock)], env=env, cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert not SingleInstance(name, lock).claim()  # alive: the lock is taken (nobody answers)
    finally:
        holder.kill()
        holder.wait()
    instance = SingleInstance(name, lock)
    assert instance.claim()  # killed: the kernel let the lock go
    instance.close()


def test_a_stale_socket_from_a_crashed_instance_does_not_block_the_start(qtbot, name, tmp_path) -> None:
    path = os.path.join(QDir.tempPath(), name)
    crashed = socket.socket(socket.AF_UNIX)
    crashed.bind(path)  # bound, then the process "dies": the file stays, nobody listens
    crashed.close()
    assert os.path.exists(path)
    instance = SingleInstance(name, tmp_path / "instance.lock")
    try:
        assert instance.claim()
        instance.listen()
        assert instance.server is not None and instance.server.isListening()
        with qtbot.waitSignal(instance.activated, timeout=5000):
            assert not SingleInstance(name, tmp_path / "instance.lock").claim()  # it is the one that answers now
    finally:
        instance.close()


def test_the_name_is_per_user_and_per_settings_folder(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(tmp_path / "a"))
    one = server_name()
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(tmp_path / "b"))
    assert server_name() != one
    assert f"-{os.getuid()}-" in one


SECOND_LAUNCH = """
import sys
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from echo_desk.ui.app.single_instance import SingleInstance
app = QCoreApplication(sys.argv)
second = SingleInstance(sys.argv[1], Path(sys.argv[2]))
sys.exit(0 if second.claim() else 3 if second.answered else 4)
"""

HOLD_LOCK = """
import sys, time
from pathlib import Path
from PySide6.QtCore import QCoreApplication
from echo_desk.ui.app.single_instance import SingleInstance
app = QCoreApplication(sys.argv)
assert SingleInstance(sys.argv[1], Path(sys.argv[2])).claim()
print("held", flush=True)
time.sleep(600)
"""


def test_a_second_real_process_exits_and_the_first_window_comes_forward(qtbot, name, lock) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.showMinimized()
    first = SingleInstance(name, lock)
    assert first.claim()
    first.listen()
    asked: list[bool] = []
    first.activated.connect(lambda: (asked.append(True), bring_forward(window)))
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen([sys.executable, "-c", SECOND_LAUNCH, name, str(lock)], env=env, cwd=REPO)
    try:
        qtbot.waitUntil(lambda: proc.poll() is not None and bool(asked), timeout=20000)
    finally:
        if proc.poll() is None:
            proc.kill()
        first.close()
    assert proc.returncode == 3  # it deferred to the first
    assert not window.isMinimized() and window.isVisible()


def test_launching_echo_desk_twice_leaves_one_running(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The real app, twice, with the same settings folder: the second exits 0 at once (before it
    paints or loads anything), the first keeps running and then closes cleanly."""
    import signal
    import time

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO),
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "ECHO_DESK_DATA_DIR": str(tmp_path / "data")}
    first = subprocess.Popen([sys.executable, "-m", "echo_desk"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not list((tmp_path / "data").glob("*.sqlite3*")) and time.monotonic() < deadline:
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            time.sleep(0.05)
        assert list((tmp_path / "data").glob("*.sqlite3*")), "the first instance never loaded"
        second = subprocess.run([sys.executable, "-m", "echo_desk"], env=env, capture_output=True,
                                text=True, timeout=30)
        assert second.returncode == 0, second.stderr
        assert first.poll() is None  # the first is still there
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0
    finally:
        if first.poll() is None:
            first.kill()


def test_a_launch_beside_an_echo_desk_that_never_answers_says_so_and_leaves(tmp_path, name) -> None:
    # The first holds the lock but is stuck (it never listens): the second must neither start a
    # second app on the same settings nor hang; it says why and exits.
    config = tmp_path / "config"
    config.mkdir(mode=0o700)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO),
           "ECHO_DESK_CONFIG_DIR": str(config), "ECHO_DESK_DATA_DIR": str(tmp_path / "data")}
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, name, str(config / "instance.lock")], env=env,
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = subprocess.run([sys.executable, "-m", "echo_desk"], env=env, capture_output=True, text=True,
                                timeout=60)
    finally:
        holder.kill()
        holder.wait()
    assert second.returncode == 1
    assert "already running with these settings, but it did not answer" in second.stderr
    assert not (tmp_path / "data").exists()  # it loaded nothing
