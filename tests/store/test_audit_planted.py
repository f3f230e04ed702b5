"""What a call tried to plant (put aside or back by the sandbox) in its audit row: typed in the
record, stored with full paths, redacted and private as the rest of the row, in the journal line
as in the database; bounded (a few hundred entries), with how many were left out of how many. A
log written before (its table without ``planted``, its journal's lines one column short) still
reads whole, each old row planting nothing, and takes new rows."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from pathlib import Path

from echo_desk.store.audit import AUDITED_CHARS, MOST_AUDITED, AuditLog, AuditRecord
from echo_desk.store.audit_journal import journal_path
from echo_desk.tools.planted import Change, Planted, more_of, planted_of

SECRET = "sk-abcdefghijklmnopqrstuvwx"
HOOK = Planted(".git/hooks/pre-commit", Change.CREATED, kept="/data/put-aside/1/ws/.git/hooks/pre-commit")
ENVRC = Planted(".envrc", Change.CHANGED, put_back=True, kept="/data/put-aside/1/ws/.envrc")


def _record(call_id: str, planted: tuple[Planted, ...] = (), planted_in: str = "") -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv", scope_chain=("conv",), call_id=call_id,
                       tool="run_command", source="builtin", arguments={"command": "make"}, decision="allowed",
                       provenance="person: allow_once", ok=True, error_kind=None, error="", duration_ms=1.0,
                       planted=planted, planted_in=planted_in)


def test_what_a_call_planted_is_stored_with_full_paths_and_read_back_typed(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record("c1", (HOOK, ENVRC), "/home/me/ws"))
        audit.append(_record("c2"))
        rows = {r["call_id"]: r for r in audit.query()}
    finally:
        audit.close()
    assert planted_of(rows["c1"]["planted"]) == [
        Planted("/home/me/ws/.git/hooks/pre-commit", Change.CREATED, kept=HOOK.kept),
        Planted("/home/me/ws/.envrc", Change.CHANGED, put_back=True, kept=ENVRC.kept)]
    assert rows["c2"]["planted"] == []


def test_without_its_workspace_a_planted_path_stays_as_the_guard_gave_it(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record("c1", (HOOK,)))
        [row] = audit.query()
    finally:
        audit.close()
    assert [p.path for p in planted_of(row["planted"])] == [".git/hooks/pre-commit"]


def test_a_planted_path_is_redacted_and_the_files_stay_private(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    path = folder / "audit.sqlite3"
    audit = AuditLog(path)
    try:
        record = _record("c1", (Planted(f"{SECRET}/.envrc", Change.CREATED),), "/home/me/ws")
        # Handed to the writer only by ``queue_later``: its journal line is read before it is folded.
        audit.append_started(record.start(), at=record.at, ok=True, error_kind=None, error="", duration_ms=1.0,
                             planted=record.planted, planted_in=record.planted_in, later=True)
        [line] = journal_path(path).read_text().splitlines()
        journaled = json.loads(line)["row"]
        assert tuple(journaled) == record.row()  # the line and the row agree, column for column
        audit.queue_later()
        [row] = audit.query()
    finally:
        audit.close()
    assert len(journaled) == 20 and ".envrc" in journaled[-2] and SECRET not in line
    [stored] = planted_of(row["planted"])
    assert stored.path.startswith("/home/me/ws/") and stored.path.endswith("/.envrc") and SECRET not in stored.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert SECRET.encode() not in path.read_bytes()


def test_a_record_left_in_the_journal_by_a_crash_keeps_what_it_planted(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    AuditLog(path).close()
    row = _record("c1", (HOOK,), "/home/me/ws").row()
    journal_path(path).write_text(json.dumps({"seq": 1, "row": list(row)}) + "\n")
    audit = AuditLog(path)
    try:
        [stored] = audit.query()
    finally:
        audit.close()
    assert [p.path for p in planted_of(stored["planted"])] == ["/home/me/ws/.git/hooks/pre-commit"]


#: The audit table as Echo Desk wrote it before it recorded plants (the columns up to ``event``).
SCHEMA_BEFORE_PLANTED = """
CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, conversation_id TEXT NOT NULL,
    scope_chain TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, source TEXT NOT NULL,
    arguments TEXT NOT NULL, decision TEXT NOT NULL, provenance TEXT NOT NULL, ok INTEGER NOT NULL,
    error_kind TEXT, error TEXT, duration_ms REAL NOT NULL, file_changes TEXT NOT NULL,
    rule_source TEXT NOT NULL DEFAULT '', grant_id TEXT NOT NULL DEFAULT '', client TEXT NOT NULL DEFAULT '',
    event TEXT NOT NULL DEFAULT 'call'
);
CREATE INDEX audit_conversation ON audit(conversation_id);
CREATE INDEX audit_tool ON audit(tool);
CREATE TABLE audit_journal (id INTEGER PRIMARY KEY CHECK (id = 1), folded INTEGER NOT NULL);
"""


def _row_before_planted(call_id: str) -> list[object]:
    return [time.time(), "conv", '["conv"]', call_id, "run_command", "builtin", '{"command": "ls"}', "auto",
            "risk default: read", 1, None, "", 2.0, "[]", "", "", "", "call"]


def test_a_log_written_before_plants_were_recorded_reads_whole_and_takes_them(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_BEFORE_PLANTED)
        db.execute("INSERT INTO audit (at, conversation_id, scope_chain, call_id, tool, source, arguments, decision,"
                   " provenance, ok, error_kind, error, duration_ms, file_changes, rule_source, grant_id, client,"
                   " event) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", _row_before_planted("stored"))
    db.close()
    os.chmod(path, 0o600)
    # A crash of the old version left one record in its journal, one column short of today's.
    journal_path(path).write_text(json.dumps({"seq": 1, "row": _row_before_planted("journaled")}) + "\n")
    audit = AuditLog(path)
    try:
        audit.append(_record("new", (HOOK,), "/home/me/ws"))
        rows = audit.query()
    finally:
        audit.close()
    assert [(r["call_id"], len(r["planted"])) for r in rows] == [("new", 1), ("journaled", 0), ("stored", 0)]
    assert rows[2]["arguments"] == {"command": "ls"} and rows[2]["event"] == "call"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_what_a_sandbox_checked_later_left_goes_in_the_newest_row_of_its_call_only(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record("c1"))  # an older call with the same id (another turn)
        audit.append(_record("c1"))
        audit.append(_record("c2"))
        # Queued right behind its row, as a check that ends at once does.
        audit.planted_later(conversation_id="conv", call_id="c1", tool="run_command", planted=(HOOK,),
                            planted_in=f"/home/me/{SECRET}")
        audit.planted_later(conversation_id="other", call_id="c2", tool="run_command", planted=(ENVRC,))
        rows = audit.query()
    finally:
        audit.close()
    assert [(r["call_id"], r["planted"] != []) for r in rows] == [("c2", False), ("c1", True), ("c1", False)]
    [hook] = planted_of(rows[1]["planted"])
    assert hook.path.endswith("/.git/hooks/pre-commit") and hook.change is Change.CREATED and SECRET not in hook.path


MANY = 10_000
PLANTS = tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED, kept=f"/data/put-aside/1/ws/pkg{i:05}/.envrc")
               for i in range(MANY))


def test_ten_thousand_plants_make_a_bounded_row_and_journal_line_that_say_the_total(tmp_path: Path) -> None:
    """Before, every entry went into the row and its journal line (some 1.5 MB for these)."""
    path = tmp_path / "audit.sqlite3"
    still = Planted("zzz/.vscode/tasks.json", Change.CREATED, still_there=True)  # (what must be acted on is kept)
    audit = AuditLog(path)
    try:
        record = _record("c1", (*PLANTS, still), "/home/me/ws")
        audit.append_started(record.start(), at=record.at, ok=True, error_kind=None, error="", duration_ms=1.0,
                             planted=record.planted, planted_in=record.planted_in, later=True)
        [line] = journal_path(path).read_text().splitlines()
        audit.queue_later()
        # A later check of another call that found as many: its row is bounded alike.
        audit.append(_record("c2"))
        audit.planted_later(conversation_id="conv", call_id="c2", tool="run_command", planted=PLANTS,
                            planted_in="/home/me/ws")
        rows = {r["call_id"]: r for r in audit.query()}
    finally:
        audit.close()
    assert len(line) < 200_000
    for row in rows.values():
        entries = planted_of(row["planted"])
        assert len(entries) == MOST_AUDITED and len(json.dumps(row["planted"])) < 200_000
    first = rows["c1"]["planted"]
    assert first[-1] == {"more": MANY + 1 - MOST_AUDITED, "total": MANY + 1} and more_of(first) == MANY + 1 - MOST_AUDITED
    assert planted_of(first)[0] == Planted("/home/me/ws/zzz/.vscode/tasks.json", Change.CREATED, still_there=True)
    assert more_of(rows["c2"]["planted"]) == MANY - MOST_AUDITED


def test_long_paths_are_bounded_by_their_length_too(tmp_path: Path) -> None:
    deep = "/".join(["d" * 250] * 15)
    long = tuple(Planted(f"{deep}/{i}/.envrc", Change.CREATED, kept=f"/aside/{deep}/{i}/.envrc") for i in range(400))
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record("c1", long, "/home/me/ws"))
        [row] = audit.query()
    finally:
        audit.close()
    kept = planted_of(row["planted"])
    assert 0 < len(kept) < len(long) and more_of(row["planted"]) == len(long) - len(kept)
    assert len(json.dumps(row["planted"])) < AUDITED_CHARS + 50_000
