"""A list answered without MCP servers still starting is said once per set of them, by the app and
by the gateway's own engine alike (``gateway.left_out``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from echo_desk.gateway.left_out import LeftOut
from echo_desk.store.audit import AuditLog, Event


def test_each_new_set_is_recorded_once_and_again_after_none_was_starting(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    audit = AuditLog(tmp_path / "audit.db")
    try:
        left_out = LeftOut("cursor", logging.WARNING)
        with caplog.at_level(logging.WARNING, logger="echo_desk.gateway.left_out"):
            for starting in (["slow"], ["slow"], ["slow", "x"], [], [], ["slow"]):
                left_out.listed(starting, audit)
        rows = [r for r in audit.query(limit=100) if r["event"] == Event.TOOLS_LISTED_WITHOUT]
    finally:
        audit.close()
    said = sorted(tuple(r["arguments"]["servers"]) for r in rows)
    assert said == [("slow",), ("slow",), ("slow", "x")]
    assert all(r["client"] == "cursor" for r in rows)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 3


def test_without_an_audit_log_it_is_only_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="echo_desk.gateway.left_out"):
        LeftOut("vscode").listed(["slow"], None)
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "vscode" in caplog.text and "slow" in caplog.text
