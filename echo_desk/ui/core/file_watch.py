"""What another process saves reaches the running app at once.

The command line (``echo-desk mcp approve``, ``echo-desk mcp import``, ``echo-desk gateway
install``) and a client's gateway save the same ``settings.json`` and ``mcp.json`` as the app.
The stores take such a change when they next look (``SettingsStore`` after its recheck interval,
the MCP manager at its next edit); a watch on the config folder makes them look as soon as a file
is saved, so the servers another program added start, and a page that is only being looked at
(the catalog's switches, MCP servers) shows the change without a click. The Connected apps page
watches the other apps' config files the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

#: One save makes several events (the temporary file, the rename): they are taken as one.
SETTLE_MS = 100


class FileWatch(QObject):
    """Calls ``changed`` once what changed in ``folders`` or ``files`` has settled."""

    def __init__(self, folders: Iterable[Path], files: Iterable[Path], changed: Callable[[], None],
                 parent: QObject | None = None, *, settle_ms: int = SETTLE_MS) -> None:
        super().__init__(parent)
        self._files: list[str] = []
        self._changed = changed
        self._stopped = False
        self._settle = QTimer(self, singleShot=True, interval=settle_ms)
        self._settle.timeout.connect(self._settled)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._settle.start)
        self._watcher.fileChanged.connect(self._settle.start)
        self.watch(folders, files)

    def watch(self, folders: Iterable[Path], files: Iterable[Path]) -> None:
        """Watch these (those that exist) instead of what was watched before.

        A folder: a save that replaces a file (a rename), which a watch on the file alone loses,
        and a file that appears. A file as well: an editor may write one in place, which leaves
        the folder unchanged."""
        wanted_folders = {str(f) for f in folders if f.is_dir()}
        self._files = [str(f) for f in files]
        stale = (set(self._watcher.directories()) - wanted_folders) | (set(self._watcher.files()) - set(self._files))
        if stale:
            self._watcher.removePaths(sorted(stale))
        new_folders = wanted_folders - set(self._watcher.directories())
        if new_folders:
            self._watcher.addPaths(sorted(new_folders))
        self._watch_files()

    def stop(self) -> None:
        """No more calls of ``changed``, not even for a save already seen (the app is closing).
        Once: a page closed twice (its window's close, then its own) stopped a watch whose timer
        was already deleted, and the error raised in a close event took the app down."""
        if self._stopped:
            return
        self._stopped = True
        self._settle.stop()
        self._watcher.blockSignals(True)
        self._settle.blockSignals(True)
        self.deleteLater()

    def _watch_files(self) -> None:
        # A file replaced by a rename drops out of the watch: it is watched again once it exists.
        watched = set(self._watcher.files())
        missing = [f for f in self._files if f not in watched and Path(f).is_file()]
        if missing:
            self._watcher.addPaths(missing)

    def _settled(self) -> None:
        self._watch_files()
        self._changed()
