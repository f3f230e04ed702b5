"""``run_gui`` starts on qasync, loads the engine after the first frame and closes cleanly."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from echo_desk.ui.app import main as app_module


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
    warmed: list[bool] = []
    monkeypatch.setattr("echo_desk.ui.approval.host.warm_up_approvals", lambda: warmed.append(True))
    before = {t.ident for t in threading.enumerate()}
    os_threads_before = set(os.listdir("/proc/self/task"))

    assert app_module.run_gui(["echo-desk"]) == 0

    assert seen["painted_before_load"] is True
    assert warmed == [True]  # the approval dialog's imports are paid while loading, not at the first approval
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


def test_sigterm_closes_the_app_cleanly_like_the_close_button(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A session logout or ``kill`` sends SIGTERM: the app must shut down the same clean way
    (exit code 0, conversation store written, no child left), not die mid-write."""
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "ECHO_DESK_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.Popen([sys.executable, "-m", "echo_desk"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        # The services (store included) load after the first frame; wait for the store file.
        while not list((tmp_path / "data").glob("*.sqlite3*")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert list((tmp_path / "data").glob("*.sqlite3*")), "the app never loaded its services"
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0, proc.stderr.read() if proc.stderr else ""


def test_start_up_objects_are_kept_out_of_later_collections() -> None:
    import gc

    from echo_desk.ui.app.main import freeze_start_up_objects

    alive: list[object] = []  # a container: the collector tracks it
    assert gc.is_tracked(alive) and any(o is alive for o in gc.get_objects())
    try:
        freeze_start_up_objects()
        assert gc.get_freeze_count() > 0
        assert not any(o is alive for o in gc.get_objects())  # a full collection no longer walks it
    finally:
        gc.unfreeze()


_SAVE_ELSEWHERE = """
from echo_desk.mcp.config import parse_server, update_config
from echo_desk.store.paths import config_dir
from echo_desk.store.settings import SettingsStore

update_config(lambda s: s.update({"later": parse_server("later", {"command": "true", "enabled": False})}))
SettingsStore.in_dir(config_dir()).set_tool("run_command", enabled=False)
"""


def test_the_running_app_takes_what_another_process_saves(qapp: QApplication, monkeypatch):
    """``echo-desk gateway install`` adds servers to mcp.json and ``echo-desk mcp approve`` saves the
    settings while the app runs: the app takes both without a restart, and saves nothing over them."""
    import asyncio
    import sys

    from tests.ui.conftest import until

    seen: dict[str, object] = {}
    original_load = app_module.App.load

    async def load_then_watch(self: app_module.App) -> None:
        await original_load(self)
        services = self.services
        assert services is not None and services.mcp is not None
        heard: list[bool | None] = []
        services.settings.subscribe(lambda s: heard.append(s.tool("run_command").enabled))
        child = await asyncio.create_subprocess_exec(sys.executable, "-c", _SAVE_ELSEWHERE)
        seen["child"] = await child.wait()
        await until(lambda: "later" in services.mcp.server_names() and False in heard)
        services.settings.update(lambda s: setattr(s, "theme", "dark"))  # a save here keeps theirs
        seen["disabled"] = services.settings.current.tool("run_command").enabled is False
        self.window.close()

    monkeypatch.setattr(app_module.App, "load", load_then_watch)
    assert app_module.run_gui(["echo-desk"]) == 0
    assert seen == {"child": 0, "disabled": True}
    from echo_desk.mcp.config import load_config
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore

    saved = SettingsStore.in_dir(config_dir()).current
    assert saved.tool("run_command").enabled is False and saved.theme == "dark"
    assert "later" in load_config()
