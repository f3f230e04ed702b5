"""What another process saves in the config folder reaches the running app at once.

The command line (``echo-desk mcp approve``, ``echo-desk mcp import``, ``echo-desk gateway
install``) and a client's gateway save the same ``settings.json`` and ``mcp.json`` as the app.
The stores take such a change when they next look (``SettingsStore`` after its recheck interval,
the MCP manager at its next edit); this watch makes them look as soon as a file is saved, so the
servers another program added start, and a page that is only being looked at (the catalog's
switches, Connected apps, MCP servers) shows the change without a click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from echo_desk.store.private import private_dir

#: One save makes several events (the temporary file, the rename): they are taken as one.
SETTLE_MS = 100


class ConfigWatch(QObject):
    """Calls ``changed`` once the files in ``folder`` (``files`` among them) have settled."""

    def __init__(self, folder: Path, files: Sequence[Path], changed: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._files = [str(f) for f in files]
        self._changed = changed
        self._settle = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self._settled)
        self._watcher = QFileSystemWatcher(self)
        # The folder: a save replaces a file (rename), which a watch on the file alone loses.
        self._watcher.addPath(str(private_dir(folder)))
        self._watch_files()
        self._watcher.directoryChanged.connect(self._settle.start)
        self._watcher.fileChanged.connect(self._settle.start)

    def stop(self) -> None:
        """No more calls of ``changed``, not even for a save already seen (the app is closing)."""
        self._settle.stop()
        self._watcher.blockSignals(True)
        self._settle.blockSignals(True)
        self.deleteLater()

    def _watch_files(self) -> None:
        # The files as well: an editor may write one in place, which leaves the folder unchanged.
        watched = set(self._watcher.files())
        missing = [f for f in self._files if f not in watched and Path(f).exists()]
        if missing:
            self._watcher.addPaths(missing)

    def _settled(self) -> None:
        self._watch_files()
        self._changed()
