"""Builds the undo journal and the reverter on the data folder (used by the runtime)."""

from __future__ import annotations

from pathlib import Path

from echo_desk.agent.undo.journal import UndoJournal
from echo_desk.agent.undo.revert import Reverter
from echo_desk.store import paths
from echo_desk.store.blobs import BlobStore
from echo_desk.store.changes import ChangeStore
from echo_desk.store.settings import SettingsStore

CHANGES_FILE = "changes.sqlite3"
BLOBS_FOLDER = "undo-blobs"
_DAY = 86_400.0


def open_undo(data_dir: Path, settings: SettingsStore) -> tuple[UndoJournal, Reverter]:
    """The journal the dispatcher records into and the reverter the UI and CLI use."""
    changes = ChangeStore(data_dir / CHANGES_FILE)
    blobs = BlobStore(data_dir / BLOBS_FOLDER)
    journal = UndoJournal(
        changes,
        blobs,
        max_file_bytes=lambda: settings.current.undo_max_file_bytes,
        keep_seconds=lambda: settings.current.undo_keep_days * _DAY,
        max_total_bytes=lambda: settings.current.undo_max_total_bytes,
        trash_root=paths.trash_root(),
    )
    # Off the caller's thread: start-up (the window) never waits for a walk of the kept copies.
    journal.prune_in_background()
    return journal, Reverter(changes, blobs)
