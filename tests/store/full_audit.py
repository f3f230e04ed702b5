"""An audit log on a database that is full for real: SQLite's own ``max_page_count`` limit makes
an insert that needs a new page (a record larger than a page always does) fail with SQLITE_FULL
("database or disk is full"), as a full disk does, until ``room()`` lifts it. (No mount, no
root: the same error code, from SQLite itself.)"""

from __future__ import annotations

import sqlite3
from typing import Any

from echo_desk.store.audit import AuditLog


class FullAuditLog(AuditLog):
    full = True

    def room(self) -> None:
        self.full = False

    def _write(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
        # Set on the writer's own connection, on its own thread, before each batch.
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages if self.full else 1 << 30}")
        super()._write(conn, rows)
