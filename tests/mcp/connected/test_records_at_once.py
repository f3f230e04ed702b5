"""Two Echo Desks at once (the app and ``echo-desk gateway install`` in a terminal) each record
what they moved: neither writes back the records it read before the other's, so every move can
still be undone in one click."""

from __future__ import annotations

import threading
from pathlib import Path

from echo_desk.mcp.connected.records import InstallRecord, Records


def _record(location_id: str) -> InstallRecord:
    return InstallRecord(location_id=location_id, client=location_id, path=f"/x/{location_id}", key_path=("mcpServers",),
                         when="now", backup="", written="", before_sha256="", after_sha256="", entry=None)


def test_two_processes_recording_at_once_keep_both_records(tmp_path: Path) -> None:
    folder = tmp_path / "connected"
    folder.mkdir()
    app, terminal = Records(folder), Records(folder)  # each its own lock, as in two processes
    app_loaded, terminal_done = threading.Event(), threading.Event()
    real_load = app._load

    def slow_load() -> dict[str, InstallRecord]:
        found = real_load()
        app_loaded.set()
        terminal_done.wait(timeout=1.0)  # the terminal writes its record now, unless it must wait its turn
        return found

    app._load = slow_load  # type: ignore[method-assign]

    def terminal_put() -> None:
        app_loaded.wait(timeout=5)
        terminal.put(_record("zed"))
        terminal_done.set()

    other = threading.Thread(target=terminal_put)
    other.start()
    app.put(_record("cursor"))
    other.join(timeout=10)
    assert set(Records(folder).all()) == {"cursor", "zed"}
