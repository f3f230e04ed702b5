"""What sandboxed MCP servers left in the person's folders that was put aside while Echo Desk
quit (the check at each server's end), kept until the person has been told.

Quitting, there is no call left whose result could say it, and a log is no place a person looks:
each server's record is kept here (SQLite, private, in the data folder), and the app shows what
is still untold at its next start, then marks it told. The CLI prints it as it quits instead.
Plain values: each entry is ``tools.planted.Planted.to_json()``'s, read back by whoever shows it.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.common.storable import storable
from echo_desk.store.planted_rows import planted_entries, planted_text
from echo_desk.store.private import one_use_private

log = logging.getLogger(__name__)

LEFT_AT_QUIT_FILE = "left_at_quit.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS left_at_quit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    server TEXT NOT NULL,
    folder TEXT NOT NULL,
    planted TEXT NOT NULL,
    told INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class LeftAtQuit:
    """One server's record: when, which server, its folder, and each thing put aside."""

    id: int
    at: float
    server: str
    #: The folder it worked in; each entry's ``path`` is relative to it.
    folder: str
    planted: tuple[Mapping[str, Any], ...]


class LeftAtQuitStore:
    """Opened for each use (it is written once at a quit and read once at a start)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connection(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return one_use_private(self.path, _SCHEMA)

    def add(self, server: str, folder: str, planted: Sequence[Mapping[str, Any]], *, told: bool = False,
            at: float | None = None) -> None:
        """Keep one server's record (``told``: the person has just been shown it, in a terminal)."""
        text = planted_text(planted)
        with self._connection() as conn:
            conn.execute("INSERT INTO left_at_quit (at, server, folder, planted, told) VALUES (?,?,?,?,?)",
                         (time.time() if at is None else at, storable(server), storable(folder), text, int(told)))

    def untold(self) -> list[LeftAtQuit]:
        """The records nobody has been shown yet, oldest first (none, without opening a database
        that is not there: most starts have nothing to tell)."""
        if not self.path.exists():
            return []
        try:
            with self._connection() as conn:
                rows = conn.execute("SELECT id, at, server, folder, planted FROM left_at_quit WHERE told = 0"
                                    " ORDER BY id").fetchall()
        except sqlite3.Error:
            log.exception("what was put aside when Echo Desk last quit could not be read")
            return []
        return [LeftAtQuit(id, at, server, folder, planted_entries(planted)) for id, at, server, folder, planted in rows]

    def mark_told(self, ids: Iterable[int]) -> None:
        wanted = [(i,) for i in ids]
        if wanted:
            with self._connection() as conn:
                conn.executemany("UPDATE left_at_quit SET told = 1 WHERE id = ?", wanted)

