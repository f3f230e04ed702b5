"""The audit journal (``echo_desk/store/audit_journal.py``): a record is safe from a crash once
appended, without waiting for SQLite; the next start folds it in exactly once; a torn line is
skipped; the file is private and holds no secret the database would not; a journal the disk
refuses falls back to waiting for the database."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from echo_desk.store import audit_journal
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.audit_journal import journal_path

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-abcdefghijklmnopqrstuvwx"


def _record(n: int) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv", scope_chain=("conv",), call_id=f"c{n}",
                       tool="t", source="mcp", arguments={"n": n, "token": SECRET}, decision="auto",
                       provenance="settings", ok=True, error_kind=None, error="", duration_ms=1.0)


def _in_database(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT call_id FROM audit ORDER BY id")]


def _calls(path: Path) -> list[str]:
    """The calls in the log as the next start sees them (it replays the journal)."""
    audit = AuditLog(path)
    try:
        return [row["call_id"] for row in reversed(audit.query(limit=1000))]
    finally:
        audit.close()


def _told(audit: AuditLog) -> None:
    told = threading.Event()
    audit.written(told.set)
    assert told.wait(10)


# The app's side, in a process of its own: each record appended and its answer given (``written``
# called back) as a call's is, then "answered" said; the writer's batch window is made so long that
# it never folds a record before the kill, so only the journal can keep them.
_CHILD = """
import sys, threading, time
import echo_desk.store.audit as audit_module
audit_module._BATCH_WINDOW_SECONDS = 60.0
from tests.store.test_audit_journal import _record
audit = audit_module.AuditLog(sys.argv[1])
for n in range(5):
    audit.append(_record(n))
    told = threading.Event()
    audit.written(told.set)
    assert told.wait(10)
print("answered", flush=True)
time.sleep(60)
"""


def test_records_answered_survive_a_kill_before_the_database_has_them_and_fold_once(tmp_path: Path) -> None:
    path = tmp_path / "data" / "audit.sqlite3"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path)], cwd=ROOT, stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"answered"
        os.kill(child.pid, signal.SIGKILL)  # the moment the last answer is given: nothing after it runs
    finally:
        child.kill()
        child.wait()
    assert _in_database(path) == []  # the answers did not wait for SQLite
    assert _calls(path) == [f"c{n}" for n in range(5)]  # the restart folded the journal in
    assert journal_path(path).stat().st_size == 0
    assert _calls(path) == [f"c{n}" for n in range(5)]  # and only once


def test_a_journal_folded_before_a_crash_is_not_folded_again(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    audit = AuditLog(path)
    lines = []
    for n in range(5):  # what the journal held; records 1-3 were folded when the app died
        record = _record(n)
        lines.append(json.dumps({"seq": n + 1, "row": list(record.row())}) + "\n")
        if n < 3:
            audit.append(record)
    audit.close()
    assert _in_database(path) == ["c0", "c1", "c2"]
    journal_path(path).write_text("".join(lines))
    assert _calls(path) == ["c0", "c1", "c2", "c3", "c4"]
    assert _calls(path) == ["c0", "c1", "c2", "c3", "c4"]
    audit = AuditLog(path)  # and numbering goes on past what was replayed
    audit.append(_record(5))
    audit.close()
    assert _calls(path) == ["c0", "c1", "c2", "c3", "c4", "c5"]


def test_a_torn_line_is_skipped_and_the_lines_around_it_are_kept(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "audit.sqlite3"
    AuditLog(path).close()
    line = [json.dumps({"seq": n + 1, "row": list(_record(n).row())}) for n in range(3)]
    # A line torn by a full disk, then the next record on a fresh line; the last line torn by a crash.
    journal_path(path).write_text(line[0] + "\n" + line[1][:40] + "\n" + line[2] + "\n" + '{"seq": 4, "ro')
    assert _calls(path) == ["c0", "c2"]
    assert "2 torn line(s)" in caplog.text


def test_the_journal_is_private_and_holds_no_secret(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    audit = AuditLog(folder / "audit.sqlite3")
    try:
        os.umask(old := os.umask(0))  # the umask is no part of it
        audit.append(_record(0))
        journal = journal_path(folder / "audit.sqlite3")
        assert stat.S_IMODE(journal.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        held = journal.read_bytes()
        assert b'"call_id"' not in held and b"c0" in held and SECRET.encode() not in held
    finally:
        os.umask(old)
        audit.close()


def test_a_journal_readable_by_others_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    journal_path(path).write_text("")
    journal_path(path).chmod(0o644)
    AuditLog(path).close()
    assert stat.S_IMODE(journal_path(path).stat().st_mode) == 0o600


def test_a_journal_the_disk_refuses_makes_answers_wait_for_the_database(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("echo_desk.store.audit._BATCH_WINDOW_SECONDS", 60.0)  # folds only when waited for
    path = tmp_path / "audit.sqlite3"
    audit = AuditLog(path)
    real_write = os.write
    full = True

    def write(fd: int, data: bytes) -> int:
        if full:  # a full disk: part of the line goes in, then the rest is refused
            real_write(fd, data[:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(audit_journal.os, "write", write)
    try:
        audit.append(_record(0))
        assert not audit.safe()
        full = False
        audit.append(_record(1))  # the journal takes it, on a line of its own after the torn one
        torn, line, end = journal_path(path).read_bytes().split(b"\n")
        assert len(torn) == 10 and json.loads(line)["seq"] == 2 and end == b""
        assert not audit.safe() and _in_database(path) == []  # record 1 is not in the journal
        _told(audit)  # so the answer waits for the database, as before the journal
        assert audit.safe() and _in_database(path) == ["c0", "c1"] and audit.failing == ""
        audit.append(_record(2))
        assert audit.safe()  # in the journal: no wait
    finally:
        audit.close()
    assert _calls(path) == ["c0", "c1", "c2"]


def test_a_journal_another_process_owns_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    journal_path(path).write_text(json.dumps({"seq": 1, "row": list(_record(9).row())}) + "\n")
    fd = os.open(journal_path(path), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # the app that owns it runs
        audit = AuditLog(path)
        try:
            audit.append(_record(0))
            assert not audit.safe()
            _told(audit)
            assert _in_database(path) == ["c0"]  # not replayed: its owner folds it
        finally:
            audit.close()
        assert journal_path(path).read_bytes().count(b"\n") == 1  # neither written nor emptied
    finally:
        os.close(fd)


def test_a_record_that_cannot_be_put_together_does_not_keep_later_answers_waiting(tmp_path: Path) -> None:
    def broken() -> AuditRecord:
        raise RuntimeError("boom")

    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append_deferred(broken)
        assert not audit.safe()
        _told(audit)
        assert audit.safe()  # tried (and given up, logged): the next answers need not wait
        audit.append(_record(0))
        assert audit.safe()
    finally:
        audit.close()


def test_a_record_begun_before_its_call_ended_is_journaled_and_stored_as_one_made_whole(tmp_path: Path) -> None:
    """``append_started`` (the first columns put together while the call ran) writes the journal
    line and the row ``append`` writes for the same record: lone surrogates, secrets in the
    arguments, the error and the file changes, text beyond ASCII."""
    from dataclasses import replace

    from echo_desk.store.audit import RowStart

    record = replace(_record(1), arguments={"text": f"{SECRET} \udcff naïve ✓"}, provenance=f"rule {SECRET}",
                     ok=False, error_kind="business", error=f"failed: {SECRET} \udc80", rule_source="r.toml line 4",
                     client="cursor", file_changes=({"path": "/tmp/é", "kind": "modify", "token": SECRET},))
    whole, begun = tmp_path / "whole" / "audit.sqlite3", tmp_path / "begun" / "audit.sqlite3"
    logs = AuditLog(whole), AuditLog(begun)
    try:
        logs[0].append(record)
        start = RowStart.of(conversation_id=record.conversation_id, scope_chain=record.scope_chain,
                            call_id=record.call_id, tool=record.tool, source=record.source, arguments=record.arguments,
                            decision=record.decision, provenance=record.provenance, rule_source=record.rule_source,
                            grant_id=record.grant_id, client=record.client)
        logs[1].append_started(start, at=record.at, ok=record.ok, error_kind=record.error_kind, error=record.error,
                               duration_ms=record.duration_ms, file_changes=record.file_changes)
        lines = [journal_path(p).read_bytes() for p in (whole, begun)]
        assert lines[0] == lines[1] and SECRET.encode() not in lines[0]
        assert json.loads(lines[0])["row"] == json.loads(json.dumps(list(record.row())))
        stored = [log.query() for log in logs]
    finally:
        for log in logs:
            log.close()
    for row in stored:
        row[0].pop("id")
    assert stored[0] == stored[1] and SECRET not in json.dumps(stored[0])


def test_a_record_queued_later_is_journaled_at_once_and_folded_in_the_order_numbered(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    """``later``: the record is in the journal when ``append_started`` returns (its answer may go)
    and reaches the writer with ``queue_later``, or before anything queued after it, in order."""
    from echo_desk.store.audit import RowStart

    monkeypatch.setattr("echo_desk.store.audit._BATCH_WINDOW_SECONDS", 0.0)
    path = tmp_path / "data" / "audit.sqlite3"
    audit = AuditLog(path)

    def later(n: int) -> None:
        record = _record(n)
        start = RowStart.of(conversation_id="conv", scope_chain=("conv",), call_id=record.call_id, tool="t",
                            source="mcp", arguments=record.arguments, decision="auto", provenance="settings")
        audit.append_started(start, at=record.at, ok=True, error_kind=None, error="", duration_ms=1.0, later=True)

    try:
        later(1)
        assert b'"c1"' in journal_path(path).read_bytes() and audit.safe()
        audit.wait_tried()  # queues what waits first
        assert _in_database(path) == ["c1"]
        later(2)
        assert _in_database(path) == ["c1"]  # not queued: the writer (no batch window) has not seen it
        audit.queue_later()
        later(3)
        audit.append_deferred(lambda: _record(4))  # queued at once: after 3, which waited
        later(5)
        audit.flush()
        assert _in_database(path) == ["c1", "c2", "c3", "c4", "c5"]
    finally:
        audit.close()
    assert _calls(path) == ["c1", "c2", "c3", "c4", "c5"]


@pytest.mark.parametrize("column", ["conversation_id", "call_id", "tool", "source", "decision", "provenance",
                                    "rule_source", "grant_id", "client", "error_kind", "error"])
def test_a_lone_surrogate_in_any_text_column_is_stored_escaped_in_the_journal_and_the_row(
        tmp_path: Path, column: str) -> None:
    """The columns are made storable after one look at all their texts (they encode to UTF-8 unless
    some value holds a lone surrogate): one in any column is still escaped, in the line and the row."""
    from dataclasses import replace

    from echo_desk.common.storable import storable_text
    from echo_desk.store.audit import RowStart

    value = f"{column} \udcff \ud800 é"
    text_column: dict[str, Any] = {column: value}
    record = replace(_record(1), ok=False, **text_column)
    path = tmp_path / "audit.sqlite3"
    audit = AuditLog(path)
    try:
        start = RowStart.of(conversation_id=record.conversation_id, scope_chain=record.scope_chain,
                            call_id=record.call_id, tool=record.tool, source=record.source, arguments=record.arguments,
                            decision=record.decision, provenance=record.provenance, rule_source=record.rule_source,
                            grant_id=record.grant_id, client=record.client)
        audit.append_started(start, at=record.at, ok=record.ok, error_kind=record.error_kind, error=record.error,
                             duration_ms=record.duration_ms)
        line = json.loads(journal_path(path).read_bytes().decode("utf-8"))
        stored = audit.query()[0]
    finally:
        audit.close()
    escaped = storable_text(value)
    assert escaped == f"{column} \\xff \\ud800 é"
    assert escaped in line["row"] and stored[column] == escaped


def _varied_records() -> list[AuditRecord]:
    """Records whose every kind of column varies: text beyond ASCII, lone surrogates (in the
    arguments, a name, the error), quotes, backslashes and control characters, secrets, no error
    kind and one, file changes and planted entries or none."""
    from dataclasses import replace

    from echo_desk.store.audit import Event
    from echo_desk.tools.planted import Change, Planted

    base = _record(1)
    return [
        base,
        replace(base, arguments={}, provenance="", rule_source="", client="", folders_checked=1000),
        replace(base, arguments={"text": "naïve ✓ 中文 \U0001f600", "q": 'say "hi"\\ \n\t\x00\x1f'},
                conversation_id="会话", tool="读文件", client="cursor", grant_id="g-1", rule_source="r.toml line 4"),
        replace(base, arguments={"name": "\udcff\udc80 \ud800", "nested": [1, 2.5, None, True, {"k": "\udfff"}]},
                ok=False, error_kind="business", error="failed: \udc80 é", call_id="c\ud83d"),
        replace(base, provenance=f"rule {SECRET}", error=f"token {SECRET}", ok=False, error_kind="timeout",
                file_changes=({"path": "/tmp/é", "kind": "modify", "token": SECRET},
                              {"path": "/tmp/\udcfe", "kind": "create"}), duration_ms=0.0, at=0.0),
        replace(base, event=Event.SERVER_LEFT, scope_chain=("conv", "sub\udcff"),
                planted=(Planted(".git/hooks/pre-commit", Change.CREATED, kept="/k/1"),
                         Planted("caf\udce9/.bashrc", Change.CHANGED, put_back=True, workspace="/w/二")),
                planted_in="/w/一", duration_ms=1e-7, at=1.7e9 + 0.123456789),
    ]


def _line_put_together_in_pieces(seq: int, record: AuditRecord) -> bytes:
    """The journal line as it was made before one encoding did it: the row's groups of columns
    (the time, the start, the ending, the rest of the start, the planted column, the folders
    checked) each encoded as JSON array items, joined with the array's own separator."""
    row = record.row()
    groups = ((row[0],), row[1:9], row[9:14], row[14:18], (row[18],), (row[19],))
    items = [json.JSONEncoder(ensure_ascii=False).encode(list(group))[1:-1] for group in groups]
    return f'{{"seq": {seq}, "row": [{", ".join(items)}]}}\n'.encode()


def test_the_journal_line_made_in_one_encoding_is_the_same_bytes_as_made_in_pieces(tmp_path: Path) -> None:
    """Begun while the call ran (``RowStart``) or appended whole, each record's line is byte for
    byte the line its columns' pieces made, and what the next start reads back is its stored row."""
    from echo_desk.store.audit import Event

    records = _varied_records()
    assert {r.event for r in records} >= {Event.CALL, Event.SERVER_LEFT}
    for how in ("whole", "begun"):
        path = tmp_path / how / "audit.sqlite3"
        audit = AuditLog(path)
        try:
            for record in records:
                if how == "whole":
                    audit.append(record)
                else:
                    audit.append_started(record.start(), at=record.at, ok=record.ok, error_kind=record.error_kind,
                                         error=record.error, duration_ms=record.duration_ms,
                                         file_changes=record.file_changes, planted=record.planted,
                                         planted_in=record.planted_in, folders_checked=record.folders_checked,
                                         later=True)
            lines = journal_path(path).read_bytes().splitlines(keepends=True)
        finally:
            audit.close()
        assert lines == [_line_put_together_in_pieces(n, r) for n, r in enumerate(records, 1)]
        assert SECRET.encode() not in b"".join(lines)
        assert [json.loads(line)["row"] for line in lines] == [json.loads(json.dumps(list(r.row()))) for r in records]


def test_a_begun_record_is_encoded_once_for_its_journal_line(tmp_path: Path, monkeypatch) -> None:
    """The line is one encoding of the row, not one per group of columns put together."""
    encodes: list[object] = []
    real = audit_journal._encode

    def counted(value: object) -> str:
        encodes.append(value)
        return real(value)

    monkeypatch.setattr(audit_journal, "_encode", counted)
    path = tmp_path / "audit.sqlite3"
    audit = AuditLog(path)
    try:
        for record in _varied_records():
            encodes.clear()
            audit.append_started(record.start(), at=record.at, ok=record.ok, error_kind=record.error_kind,
                                 error=record.error, duration_ms=record.duration_ms, file_changes=record.file_changes,
                                 planted=record.planted, planted_in=record.planted_in)
            assert len(encodes) == 1
    finally:
        audit.close()
