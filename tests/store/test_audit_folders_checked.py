"""The audit row of a sandboxed command whose search for planted files stopped at its bound says
how many folders were checked (``folders_checked``; 0: every folder was), from the tool's result
through the real dispatcher to the row, written whole or begun while the call ran. A log written
before (its table without the column, its journal's lines one column short) still reads whole,
each old row with 0, and takes new rows. Before, only the card's facts held ``search_cut``."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.audit_journal import journal_path
from echo_desk.tools import Tool, ToolExecutionContext, ToolResult
from tests.agent.fakes import make_engine
from tests.store.test_audit_planted import SCHEMA_BEFORE_PLANTED, _row_before_planted


def _record(call_id: str, folders_checked: int = 0) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv", scope_chain=("conv",), call_id=call_id,
                       tool="run_command", source="builtin", arguments={"command": "make"}, decision="allowed",
                       provenance="person: allow_once", ok=True, error_kind=None, error="", duration_ms=1.0,
                       folders_checked=folders_checked)


@pytest.mark.parametrize("how", ["whole", "begun"])
def test_the_folders_checked_are_in_the_row_and_its_journal_line(tmp_path: Path, how: str) -> None:
    path = tmp_path / "audit.sqlite3"
    audit = AuditLog(path)
    try:
        for record in (_record("cut", 1000), _record("all")):
            if how == "whole":
                audit.append(record)
            else:
                audit.append_started(record.start(), at=record.at, ok=True, error_kind=None, error="",
                                     duration_ms=1.0, folders_checked=record.folders_checked, later=True)
        journaled = [json.loads(line)["row"] for line in journal_path(path).read_text().splitlines()]
        audit.queue_later()
        rows = {r["call_id"]: r for r in audit.query()}
    finally:
        audit.close()
    assert [row[-1] for row in journaled] == [1000, 0]
    assert rows["cut"]["folders_checked"] == 1000 and rows["all"]["folders_checked"] == 0


def test_a_log_written_before_the_column_reads_whole_and_takes_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_BEFORE_PLANTED)
        db.execute("ALTER TABLE audit ADD COLUMN planted TEXT NOT NULL DEFAULT '[]'")
        db.execute("INSERT INTO audit (at, conversation_id, scope_chain, call_id, tool, source, arguments, decision,"
                   " provenance, ok, error_kind, error, duration_ms, file_changes, rule_source, grant_id, client,"
                   " event, planted) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   [*_row_before_planted("stored"), "[]"])
    db.close()
    os.chmod(path, 0o600)
    # A crash of the version before left one record in its journal, one column short of today's.
    journal_path(path).write_text(json.dumps({"seq": 1, "row": [*_row_before_planted("journaled"), "[]"]}) + "\n")
    audit = AuditLog(path)
    try:
        audit.append(_record("new", 1000))
        rows = audit.query()
    finally:
        audit.close()
    assert [(r["call_id"], r["folders_checked"]) for r in rows] == [("new", 1000), ("journaled", 0), ("stored", 0)]


class CutSearch(Tool):
    """A sandboxed call whose guard checked only the first 1,000 folders."""

    name = "cut_search"
    description = "Run."
    parameters = {"type": "object", "properties": {}}

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        from echo_desk.tools import ErrorKind

        if self.fail:
            return ToolResult.fail(ErrorKind.BUSINESS, "exit code 1", folders_checked=1000)
        return ToolResult.ok("exit code 0", folders_checked=1000)


@pytest.mark.parametrize("fail", [False, True], ids=["answered", "failed"])
def test_a_calls_folders_checked_reach_its_row_through_the_dispatcher(tmp_path: Path, fail: bool) -> None:
    dispatcher, _factory, _settings = make_engine(tmp_path, CutSearch(fail))

    async def call() -> None:
        await dispatcher.execute_tool(ToolCall(id="c1", name="cut_search", arguments="{}"),
                                      Scope(label="conversation", workspace_roots=(tmp_path,)),
                                      ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))

    asyncio.run(call())
    assert dispatcher.audit is not None
    [row] = dispatcher.audit.query(tool="cut_search")
    assert row["folders_checked"] == 1000
