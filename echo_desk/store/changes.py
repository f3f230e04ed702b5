"""The change log: every file a tool wrote, with what it held before and after (SQLite).

One row per file per call, keyed by call id, conversation and turn. The contents live in the
``BlobStore`` under their SHA-256; a row whose previous content was over the size cap (or was
pruned) is kept as "not restorable" so the person is told instead of guessing.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.store.private import connect_private

_SCHEMA = """
CREATE TABLE IF NOT EXISTS changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    before_sha256 TEXT,
    before_mode INTEGER,
    after_sha256 TEXT,
    restorable INTEGER NOT NULL,
    not_restorable_why TEXT NOT NULL DEFAULT '',
    reverted_at REAL,
    revert_told INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS changes_by_call ON changes(call_id);
CREATE INDEX IF NOT EXISTS changes_by_conversation ON changes(conversation_id, id);
"""

_COLUMNS = ("id, at, conversation_id, turn_id, call_id, tool, path, kind, before_sha256, before_mode, "
            "after_sha256, restorable, not_restorable_why, reverted_at")


class NotRestorable(enum.StrEnum):
    """Why a change cannot be undone; stored as this code, translated where it is shown."""

    TOO_LARGE = "too_large"  # over the undo size limit for one file
    NOT_REGULAR = "not_regular"  # a folder, link or device stood there
    NOT_PREVIEWED = "not_previewed"  # the tool changed a file its preview did not name
    CHANGED_BEFORE_WRITE = "changed_before_write"  # between the preview and the write
    TOO_OLD = "too_old"  # past the age limit: its copy was pruned
    OVER_SPACE_LIMIT = "over_space_limit"  # pruned to keep the kept copies under the size cap
    CONTENT_MISSING = "content_missing"  # the kept copy is gone or damaged
    UNKNOWN = "unknown"  # a record from before the codes

    @classmethod
    def of(cls, stored: str) -> NotRestorable:
        try:
            return cls(stored)
        except ValueError:
            return cls.UNKNOWN


@dataclass(frozen=True, kw_only=True)
class ChangeRecord:
    """One file one call changed. ``before_sha256 is None``: the file did not exist before;
    ``after_sha256 is None``: the call removed it (deleted or moved away)."""

    id: int = 0
    at: float
    conversation_id: str
    turn_id: str = ""
    call_id: str
    tool: str
    path: str
    kind: str
    before_sha256: str | None
    before_mode: int | None
    after_sha256: str | None
    restorable: bool
    not_restorable_why: str = ""
    reverted_at: float | None = None

    @property
    def reverted(self) -> bool:
        return self.reverted_at is not None

    @property
    def why_not_restorable(self) -> NotRestorable | None:
        """``None`` while the change can be undone."""
        return None if self.restorable else NotRestorable.of(self.not_restorable_why)


def _record(row: tuple[Any, ...]) -> ChangeRecord:
    (rid, at, conv, turn, call, tool, path, kind, before, mode, after, restorable, why, reverted) = row
    return ChangeRecord(
        id=int(rid), at=float(at), conversation_id=str(conv), turn_id=str(turn), call_id=str(call),
        tool=str(tool), path=str(path), kind=str(kind),
        before_sha256=before if isinstance(before, str) else None,
        before_mode=mode if isinstance(mode, int) else None,
        after_sha256=after if isinstance(after, str) else None,
        restorable=bool(restorable), not_restorable_why=str(why),
        reverted_at=float(reverted) if reverted is not None else None,
    )


class ChangeStore:
    """Thread-safe: the dispatcher records from the event loop, the UI and CLI revert."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        # Created private (0600, 0700 folder): the log names every file the agent touched.
        self._conn = connect_private(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)

    def add(self, records: Iterable[ChangeRecord]) -> list[int]:
        ids: list[int] = []
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                for r in records:
                    cur = self._conn.execute(
                        "INSERT INTO changes (at, conversation_id, turn_id, call_id, tool, path, kind, before_sha256,"
                        " before_mode, after_sha256, restorable, not_restorable_why) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        (r.at, r.conversation_id, r.turn_id, r.call_id, r.tool, r.path, r.kind, r.before_sha256,
                         r.before_mode, r.after_sha256, int(r.restorable), r.not_restorable_why),
                    )
                    ids.append(int(cur.lastrowid or 0))
                self._conn.execute("COMMIT")
            except BaseException:
                # All or none: a full disk must not leave half a call's rows, nor an open
                # transaction that every later write would trip on.
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        return ids

    def _select(self, where: str, args: tuple[object, ...]) -> list[ChangeRecord]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM changes {where}", args).fetchall()
        return [_record(r) for r in rows]

    def for_call(self, call_id: str) -> list[ChangeRecord]:
        return self._select("WHERE call_id = ? ORDER BY id", (call_id,))

    def for_calls(self, call_ids: Iterable[str]) -> list[ChangeRecord]:
        ids = list(dict.fromkeys(call_ids))
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        return self._select(f"WHERE call_id IN ({marks}) ORDER BY id", tuple(ids))

    def for_turn(self, conversation_id: str, turn_id: str) -> list[ChangeRecord]:
        return self._select("WHERE conversation_id = ? AND turn_id = ? ORDER BY id", (conversation_id, turn_id))

    def since(self, conversation_id: str, first_id: int) -> list[ChangeRecord]:
        """Every change of the conversation from record ``first_id`` on (oldest first)."""
        return self._select("WHERE conversation_id = ? AND id >= ? ORDER BY id", (conversation_id, first_id))

    def listing(self, conversation_id: str | None = None, limit: int = 1000) -> list[ChangeRecord]:
        if conversation_id:
            return self._select("WHERE conversation_id = ? ORDER BY id DESC LIMIT ?", (conversation_id, limit))
        return self._select("ORDER BY id DESC LIMIT ?", (limit,))

    def mark_reverted(self, ids: Iterable[int], at: float | None = None) -> None:
        stamp = at if at is not None else time.time()
        with self._lock:
            self._conn.executemany("UPDATE changes SET reverted_at = ?, revert_told = 0 WHERE id = ?",
                                   [(stamp, i) for i in ids])

    def take_untold_reverts(self, conversation_id: str) -> list[ChangeRecord]:
        """Reverted changes the model of ``conversation_id`` was not told about yet; marks them told."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM changes WHERE conversation_id = ? AND reverted_at IS NOT NULL"
                " AND revert_told = 0 ORDER BY id", (conversation_id,)).fetchall()
            self._conn.execute("UPDATE changes SET revert_told = 1 WHERE conversation_id = ? AND "
                               "reverted_at IS NOT NULL AND revert_told = 0", (conversation_id,))
            self._conn.execute("COMMIT")
        return [_record(r) for r in rows]

    def live_blobs(self) -> set[str]:
        """Every blob a change that can still be reverted may need."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT before_sha256, after_sha256 FROM changes WHERE restorable = 1 AND reverted_at IS NULL"
            ).fetchall()
        return {d for row in rows for d in row if d}

    def forget_older_than(self, cutoff: float) -> int:
        """Mark changes recorded before ``cutoff`` as no longer restorable (their blobs may go)."""
        with self._lock:
            cur = self._conn.execute(
                "UPDATE changes SET restorable = 0, not_restorable_why = ? WHERE at < ? AND restorable = 1",
                (NotRestorable.TOO_OLD.value, cutoff))
        return cur.rowcount

    def restorable_oldest_first(self) -> list[ChangeRecord]:
        """Changes that can still be undone (and are not yet), oldest first: pruning order."""
        return self._select("WHERE restorable = 1 AND reverted_at IS NULL ORDER BY id", ())

    def forget(self, ids: Iterable[int], why: NotRestorable) -> None:
        """Mark changes as no longer restorable, with why."""
        with self._lock:
            self._conn.executemany("UPDATE changes SET restorable = 0, not_restorable_why = ? WHERE id = ?",
                                   [(why.value, i) for i in ids])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
