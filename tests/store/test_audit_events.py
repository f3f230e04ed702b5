"""Audit rows that are no call (``Event``): a connected app's session handed back when the app
quit. A log written before events (its table without ``event``, its journal's lines one column
short) still reads whole, every old row a call's."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from echo_desk.store.audit import AuditLog, Event, session_handed_back, session_not_handed_back
from echo_desk.store.audit_journal import journal_path

#: The audit table as Echo Desk wrote it before events (the columns up to ``client``).
OLD_SCHEMA = """
CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, conversation_id TEXT NOT NULL,
    scope_chain TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, source TEXT NOT NULL,
    arguments TEXT NOT NULL, decision TEXT NOT NULL, provenance TEXT NOT NULL, ok INTEGER NOT NULL,
    error_kind TEXT, error TEXT, duration_ms REAL NOT NULL, file_changes TEXT NOT NULL,
    rule_source TEXT NOT NULL DEFAULT '', grant_id TEXT NOT NULL DEFAULT '', client TEXT NOT NULL DEFAULT ''
);
CREATE TABLE audit_journal (id INTEGER PRIMARY KEY CHECK (id = 1), folded INTEGER NOT NULL);
"""


def _old_row(call_id: str) -> list[object]:
    return [time.time(), "conv", '["conv"]', call_id, "read_file", "builtin", '{"path": "a"}', "auto",
            "risk default: read", 1, None, "", 2.0, "[]", "", "", "cursor"]


def test_a_hand_back_is_stored_as_its_own_event_naming_the_client(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(session_handed_back("cursor", time.time()))
        [row] = audit.query(client="cursor")
    finally:
        audit.close()
    assert row["event"] == Event.SESSION_HANDED_BACK == "session_handed_back"
    assert (row["client"], row["tool"], row["call_id"], row["decision"]) == ("cursor", "", "", "")


def test_a_hand_back_that_failed_is_stored_as_its_own_event_saying_why(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(session_not_handed_back("cursor", time.time(), "too_slow", "it took more than 5 s"))
        [row] = audit.query(client="cursor")
    finally:
        audit.close()
    assert row["event"] == Event.SESSION_NOT_HANDED_BACK == "session_not_handed_back"
    assert (row["ok"], row["error_kind"], row["error"]) == (False, "too_slow", "it took more than 5 s")
    assert (row["tool"], row["call_id"], row["decision"]) == ("", "", "")


def test_a_log_written_before_events_reads_whole_and_takes_them(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO audit (at, conversation_id, scope_chain, call_id, tool, source, arguments, decision,"
                   " provenance, ok, error_kind, error, duration_ms, file_changes, rule_source, grant_id, client)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", _old_row("stored"))
    db.close()
    # A crash of the old version left one record in its journal, one column short of today's.
    journal_path(path).write_text(json.dumps({"seq": 1, "row": _old_row("journaled")}) + "\n")
    audit = AuditLog(path)
    try:
        audit.append(session_handed_back("cursor", time.time()))
        rows = audit.query()
    finally:
        audit.close()
    assert [(r["call_id"], r["event"]) for r in rows] == [
        ("", "session_handed_back"), ("journaled", "call"), ("stored", "call")]
    assert rows[2]["arguments"] == {"path": "a"} and rows[2]["client"] == "cursor"
