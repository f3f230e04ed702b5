"""Settings another process saved reach the open windows at once.

The command line (``echo-desk mcp approve``, ``echo-desk ask``) and a client's gateway save the
same ``settings.json`` as the app. ``SettingsStore`` takes such a change on the next read after
its recheck interval; this watch takes it as soon as the file is saved, so a page that is only
being looked at (the catalog's switches, Connected apps) shows it without a click.
"""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, QObject

from echo_desk.store.private import private_dir
from echo_desk.store.settings import SettingsStore


class SettingsWatch(QObject):
    """Re-reads ``store``'s file when its folder or the file itself changes."""

    def __init__(self, store: SettingsStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._watcher = QFileSystemWatcher(self)
        # The folder: a save replaces the file (rename), which a watch on the file alone loses.
        self._watcher.addPath(str(private_dir(store.path.parent)))
        self._watch_file()
        self._watcher.directoryChanged.connect(self._changed)
        self._watcher.fileChanged.connect(self._changed)

    def _watch_file(self) -> None:
        # The file as well: an editor may write it in place, which leaves the folder unchanged.
        if self._store.path.exists() and str(self._store.path) not in self._watcher.files():
            self._watcher.addPath(str(self._store.path))

    def _changed(self, _path: str) -> None:
        self._watch_file()
        self._store.refresh()
