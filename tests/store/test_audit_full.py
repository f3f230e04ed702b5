"""A full disk under the audit log: nothing is lost, the person is told why, and reading the log
goes on (the Activity tab opens)."""

from __future__ import annotations

import time
from pathlib import Path

from echo_desk import i18n
from echo_desk.i18n import shown
from echo_desk.store.audit import AuditRecord
from tests.store.full_audit import FullAuditLog


def _record(n: int) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv", scope_chain=("conv",), call_id=f"c{n}",
                       tool="write_note", source="builtin", arguments={"n": n, "text": "x" * 8000}, decision="auto",
                       provenance="risk default", ok=True, error_kind="", error="", duration_ms=1.0)


def test_records_the_disk_refuses_are_held_and_written_once_there_is_room(tmp_path: Path) -> None:
    audit = FullAuditLog(tmp_path / "audit.sqlite3")
    heard: list[str] = []
    audit.watch_failure(lambda reason: heard.append(shown(reason)))
    try:
        for n in range(3):
            audit.append(_record(n))
        assert audit.query() == []  # nothing written, and reading does not fail
        assert audit.held == 3 and shown(audit.failing) == "the disk is full"
        audit.append(_record(3))
        audit.query()
        assert audit.held == 4 and heard == ["the disk is full"]  # told once, not per batch

        audit.room()
        audit.append(_record(4))
        calls = [row["call_id"] for row in audit.query()]
        assert calls == ["c4", "c3", "c2", "c1", "c0"]  # every one, in order
        assert audit.held == 0 and audit.failing == "" and heard == ["the disk is full", ""]
    finally:
        audit.close()


def test_why_is_said_in_the_persons_language(tmp_path: Path) -> None:
    audit = FullAuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record(0))
        audit.query()
        i18n.set_language("zh_CN")
        assert shown(audit.failing) == "磁盘已满"
    finally:
        i18n.set_language("en")
        audit.close()


def test_records_held_past_the_limit_give_up_the_oldest(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("echo_desk.store.audit.MOST_HELD_BACK", 2)
    audit = FullAuditLog(tmp_path / "audit.sqlite3")
    try:
        for n in range(4):
            audit.append(_record(n))
            audit.query()
        assert audit.held == 2
        audit.room()
        audit.append(_record(4))
        assert [row["call_id"] for row in audit.query()] == ["c4", "c3", "c2"]
    finally:
        audit.close()
