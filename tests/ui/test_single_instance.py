"""One Echo Desk per person: a second launch brings the first forward and exits; a socket left
by a crashed first instance does not block the start. Real ``QLocalServer``/``QLocalSocket``,
in one process and across two real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QDir
from PySide6.QtWidgets import QMainWindow

from echo_desk.ui.app.single_instance import SingleInstance, server_name
from echo_desk.ui.core.desktop_notify import bring_forward

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def name() -> str:
    return f"echo-desk-test-{uuid.uuid4().hex[:10]}"


def test_the_second_instance_defers_and_the_first_is_asked_to_come_forward(qtbot, name) -> None:
    first = SingleInstance(name)
    assert first.claim()
    try:
        with qtbot.waitSignal(first.activated, timeout=5000):
            second = SingleInstance(name)
            assert not second.claim()
    finally:
        first.close()


def test_a_stale_socket_from_a_crashed_instance_does_not_block_the_start(qtbot, name) -> None:
    path = os.path.join(QDir.tempPath(), name)
    crashed = socket.socket(socket.AF_UNIX)
    crashed.bind(path)  # bound, then the process "dies": the file stays, nobody listens
    crashed.close()
    assert os.path.exists(path)
    instance = SingleInstance(name)
    try:
        assert instance.claim()
        assert instance.server.isListening()
        with qtbot.waitSignal(instance.activated, timeout=5000):
            assert not SingleInstance(name).claim()  # and it is the one that answers now
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
from PySide6.QtCore import QCoreApplication
from echo_desk.ui.app.single_instance import SingleInstance
app = QCoreApplication(sys.argv)
sys.exit(0 if SingleInstance(sys.argv[1]).claim() else 3)
"""


def test_a_second_real_process_exits_and_the_first_window_comes_forward(qtbot, name) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.showMinimized()
    first = SingleInstance(name)
    assert first.claim()
    asked: list[bool] = []
    first.activated.connect(lambda: (asked.append(True), bring_forward(window)))
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen([sys.executable, "-c", SECOND_LAUNCH, name], env=env, cwd=REPO)
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
