"""``run_gui`` starts on qasync, loads the engine after the first frame and closes cleanly."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from echo_desk.ui import app as app_module


def test_run_gui_opens_loads_and_closes_without_leftovers(qapp: QApplication, monkeypatch):
    seen: dict[str, object] = {}
    original_load = app_module.App.load

    async def load_then_close(self: app_module.App) -> None:
        seen["painted_before_load"] = self.window.isVisible() and self.services is None
        await original_load(self)
        seen["banner"] = self.window.banner.text()
        seen["runtime"] = self.services.runtime is not None
        seen["conversations"] = self.window.conversations.row_count()
        seen["threads_while_running"] = threading.active_count()
        self.window.close()  # what the person does

    monkeypatch.setattr(app_module.App, "load", load_then_close)
    before = {t.ident for t in threading.enumerate()}
    os_threads_before = set(os.listdir("/proc/self/task"))

    assert app_module.run_gui(["echo-desk"]) == 0

    assert seen["painted_before_load"] is True
    assert seen["runtime"] is True
    assert seen["conversations"] == 1  # a first conversation is ready to type into
    assert "No model is connected" in str(seen["banner"])
    # Python threads we started, and OS threads of any kind (Qt's, C extensions'). A "Dummy"
    # entry is a foreign thread that once called into Python; threading never forgets those.
    leftovers = [t.name for t in threading.enumerate()
                 if t.ident not in before and not isinstance(t, threading._DummyThread)]
    assert leftovers == []
    # A thread that is just ending may still be listed for a moment: wait for it, with a deadline.
    deadline = time.monotonic() + 5
    while (extra := set(os.listdir("/proc/self/task")) - os_threads_before) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not extra, [_comm(t) for t in extra]


def _comm(task: str) -> str:
    try:
        return Path(f"/proc/self/task/{task}/comm").read_text().strip()
    except OSError:
        return task
