"""``AuditLog.written``: once it calls back, every record appended before it is safe from a crash:
in the audit journal (then it calls back at once), or, without one (another process owns it; a
full disk: ``test_audit_journal.py``), in the database file (another connection reads it: no
flush, no batch window waited out). A log already closed keeps nobody waiting."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from pathlib import Path

from echo_desk.store.audit import _BATCH_WINDOW_SECONDS, AuditLog, AuditRecord
from echo_desk.store.audit_journal import journal_path


def _record(n: int) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv", scope_chain=("conv",), call_id=f"c{n}",
                       tool="t", source="mcp", arguments={"n": n}, decision="auto", provenance="settings",
                       ok=True, error_kind=None, error="", duration_ms=1.0)


def _written(audit: AuditLog) -> None:
    told = threading.Event()
    audit.written(told.set)
    assert told.wait(10)


def _in_file(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT call_id FROM audit ORDER BY id")]


def test_written_calls_back_at_once_when_the_records_are_in_the_journal(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record(0))
        told: list[bool] = []
        audit.written(lambda: told.append(True))
        assert told == [True] and audit.safe()
    finally:
        audit.close()


def test_without_a_journal_what_was_appended_is_in_the_file_once_written_calls_back(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    owner = os.open(journal_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(owner, fcntl.LOCK_EX)  # another process owns the journal
    audit = AuditLog(path)
    try:
        for n in range(3):
            audit.append(_record(n))
            _written(audit)
            assert _in_file(path) == [f"c{i}" for i in range(n + 1)]
        # Many at once share the commit, and none waits out the batch window once it is asked for.
        started = time.perf_counter()
        for n in range(3, 53):
            audit.append(_record(n))
        _written(audit)
        assert len(_in_file(path)) == 53
        assert time.perf_counter() - started < 50 * _BATCH_WINDOW_SECONDS
    finally:
        audit.close()
        os.close(owner)
    told: list[bool] = []
    audit.written(lambda: told.append(True))
    assert told == [True]  # closed: told at once, nobody waits
