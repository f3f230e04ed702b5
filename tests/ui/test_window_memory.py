"""The window comes back as it was left: size, splitter and the last conversation, from
``window.json`` beside the settings. Tested by building the real window twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from echo_desk.store import window_state
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.app.services import Services
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core.backend import CatalogBackend


@pytest.fixture
def services(qloop, runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    yield Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                   runtime=runtime, conversations=store, providers_available=True)
    store.close()


def _window(qtbot, services) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach(services)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_size_splitter_and_last_conversation_come_back(qtbot, services, tmp_path) -> None:
    first = _window(qtbot, services)
    older = first.session.conversation
    first.new_conversation(str(tmp_path))
    newer = first.session.conversation
    first.conversations.reload(str(older.id))  # the person goes back to the older one
    qtbot.waitUntil(lambda: first.session.conversation is not None and first.session.conversation.id == older.id)
    # Restoring keeps a window on its screen, and the offscreen screen is 800 px wide, less than
    # the window's minimum width: the height is what can be seen to come back here.
    screen = first.screen().availableGeometry()
    wanted_height = screen.height() - 70
    assert wanted_height != 760  # not the default height
    first.resize(first.width(), wanted_height)
    qtbot.waitUntil(lambda: first.size().height() == wanted_height)
    first.close()

    saved = json.loads((services.settings.path.parent / window_state.FILE_NAME).read_text())
    assert saved["last_conversation"] == str(older.id) != str(newer.id)

    second = _window(qtbot, services)
    assert second.size().height() == wanted_height
    assert second.session.conversation is not None and second.session.conversation.id == older.id
    assert second.conversations.current_id() == str(older.id)


def test_a_deleted_last_conversation_or_a_broken_file_falls_back_quietly(qtbot, services) -> None:
    folder = services.settings.path.parent
    (folder / window_state.FILE_NAME).write_text("{not json")
    assert window_state.load(folder) == window_state.WindowState()
    window_state.save(folder, window_state.WindowState(geometry="!!", splitter="", last_conversation="gone"))
    win = _window(qtbot, services)
    assert win.session.conversation is not None  # the newest conversation, as without any state
    assert win.size().width() > 0


TWICE = """
import json, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.app.services import Services
base = Path(sys.argv[1])
settings = SettingsStore.in_dir(base / "config")
runtime = Runtime.create(settings_store=settings, data_dir=base / "data", with_builtins=False, with_plugins=False)
store = ConversationStore(base / "conversations.sqlite3")
services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                    conversations=store, providers_available=True)
def window():
    win = MainWindow()
    win.attach(services)
    win.show()
    app.processEvents()
    return win
first = window()
first.setGeometry(150, 120, 1400, 900)
first.splitter.setSizes([350, 800, 242])
app.processEvents()
before = [first.geometry().getRect(), first.splitter.sizes()]
first.close()
second = window()
after = [second.geometry().getRect(), second.splitter.sizes()]
print(json.dumps({"before": before, "after": after}))
second.close()
store.close()
runtime.close()
"""


def test_geometry_and_splitter_come_back_on_a_screen_large_enough(tmp_path: Path) -> None:
    """In its own process: Qt's offscreen screen is 800 px wide unless configured, and a restored
    window is kept on its screen. This one is 1920×1200."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "big", "x": 0, "y": 0, "width": 1920, "height": 1200,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "ECHO_DESK_DATA_DIR": str(tmp_path / "data")}
    (tmp_path / "config").mkdir()
    done = subprocess.run([sys.executable, "-c", TWICE, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["before"][0][2:] == [1400, 900] and shown["before"][1][0] == 350
    assert shown["after"] == shown["before"]
