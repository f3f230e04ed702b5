"""The change log made full for real, for tests of what a full disk does after a change."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from echo_desk.runtime import Runtime
from echo_desk.store.changes import ChangeRecord


def change_log_full(runtime: Runtime) -> Callable[[], None]:
    """Make the change log's own database full for real (SQLite's ``max_page_count`` gives the
    SQLITE_FULL a full disk gives): the room left in its pages is taken by rows of another
    conversation. Returns what gives the room back."""
    assert runtime.undo is not None
    changes = runtime.undo.changes
    pages = changes._conn.execute("PRAGMA page_count").fetchone()[0]
    changes._conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        for n in range(10_000):
            changes.add([ChangeRecord(at=0.0, conversation_id="filler", call_id=f"filler{n}", tool="write_file",
                                      path="/filler", kind="create", before_sha256=None, before_mode=None,
                                      after_sha256=None, restorable=True)])
    return lambda: changes._conn.execute("PRAGMA max_page_count = 1073741823") and None
