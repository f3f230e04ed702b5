"""A full disk under Revert's copies: the change the person approved is not made unless Revert
could undo it, and nothing half-written is left behind to take the room. A full change log after
the change: the change stands, the person is told Revert cannot find it, and the record is written
once there is room."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from echo_desk.agent.envelope import UNDO_NOT_RECORDED_KEY
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import shown
from echo_desk.runtime import Runtime
from echo_desk.store.blobs import BlobStore
from echo_desk.store.changes import ChangeRecord, ChangeStore
from echo_desk.store.settings import ToolPolicy
from echo_desk.ui.chat.card_parse import result_of_envelope
from echo_desk.ui.chat.tool_card import REVERT_ANCHOR, card_html
from echo_desk.ui.chat.transcript_item import ItemKind, TranscriptItem
from tests.undo.change_log import change_log_full


def _no_space(*_args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_copy_the_disk_refuses_half_way_leaves_no_partial_file(tmp_path: Path, monkeypatch) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    written: list[int] = []
    real_write = os.write

    def write_then_full(fd: int, data: bytes) -> int:
        if written:
            _no_space()
        written.append(1)
        return real_write(fd, bytes(data[:10]))

    monkeypatch.setattr(os, "write", write_then_full)
    with pytest.raises(OSError, match="No space left"):
        blobs.put(b"x" * 100)
    monkeypatch.undo()
    assert written and [p for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize("policy", [ToolPolicy.ASK, ToolPolicy.ALWAYS], ids=["asked", "run-unasked"])
async def test_an_edit_whose_copy_cannot_be_kept_changes_nothing(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                                 workspace: Path, monkeypatch, policy) -> None:
    """Both ways a call runs (after the person's yes on the caller's loop; unasked, on the tool's
    worker): the file keeps its content, the model and the person are told why."""
    target = workspace / "notes.txt"
    target.write_text("before\n")
    runtime.settings.set_tool("write_file", policy=policy)
    assert runtime.undo is not None
    monkeypatch.setattr(runtime.undo.blobs, "put", _no_space)
    call = ToolCall(id="w1", name="write_file", arguments=json.dumps({"path": "notes.txt", "content": "after\n"}))
    envelope = await runtime.dispatcher.execute_tool(call, scope, host)
    assert not envelope.ok and target.read_text() == "before\n"
    assert envelope.error.startswith("nothing was changed: Echo Desk could not keep a copy of")
    assert shown(envelope.error) == (f"Nothing was changed: Echo Desk could not keep a copy of {target} for Revert "
                                     "(the disk is full).")
    assert runtime.undo.changes.listing() == []


@pytest.mark.parametrize("policy", [ToolPolicy.ASK, ToolPolicy.ALWAYS], ids=["asked", "run-unasked"])
async def test_a_change_the_log_cannot_record_is_kept_and_written_with_the_next(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, policy) -> None:
    """The file was written before the record failed: the change stands, the result says Revert
    cannot find it (the card shows why instead of Revert), and the record waits in memory until
    the log has room: then the next change writes both, in order, and Revert undoes the first."""
    (workspace / "a.txt").write_text("a before\n")
    runtime.settings.set_tool("write_file", policy=policy)
    journal = runtime.undo
    assert journal is not None
    give_room = change_log_full(runtime)
    first = ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": "a.txt", "content": "a after\n"}))
    envelope = await runtime.dispatcher.execute_tool(first, scope, host)
    assert envelope.ok and (workspace / "a.txt").read_text() == "a after\n"
    assert envelope.metadata[UNDO_NOT_RECORDED_KEY]["cause"] == "SQLITE_FULL"
    assert journal.held == 1 and journal.changes.for_calls(["c1"]) == []

    facts = result_of_envelope(envelope)
    assert facts.not_recorded is not None and shown(facts.not_recorded) == "the disk is full"
    item = TranscriptItem(kind=ItemKind.TOOL, call_id="c1", tool_name="write_file", status=ToolStatus.DONE)
    item.show_result(facts)
    card = card_html(item, "Write file")
    assert "Revert cannot undo this change: Echo Desk could not record it (the disk is full)." in card
    assert REVERT_ANCHOR not in card

    give_room()
    second = ToolCall(id="c2", name="write_file", arguments=json.dumps({"path": "b.txt", "content": "b\n"}))
    envelope = await runtime.dispatcher.execute_tool(second, scope, host)
    assert envelope.ok and UNDO_NOT_RECORDED_KEY not in envelope.metadata
    assert journal.held == 0 and [r.call_id for r in journal.changes.for_calls(["c1", "c2"])] == ["c1", "c2"]
    assert runtime.reverter is not None
    assert runtime.reverter.apply(runtime.reverter.plan_calls(["c1"])).complete
    assert (workspace / "a.txt").read_text() == "a before\n"


def test_what_the_log_could_not_take_is_stored_with_the_message_and_read_back(tmp_path: Path) -> None:
    """A conversation opened again still says why Revert cannot find the change (in the language
    of the moment, not the words of the day it happened)."""
    from echo_desk.agent.envelope import Envelope
    from echo_desk.ui.chat.card_parse import result_of_stored
    from echo_desk.ui.chat.chat_session import _envelope_dict

    envelope = Envelope(ok=True, tool="write_file", call_id="c1", content="wrote",
                        metadata={UNDO_NOT_RECORDED_KEY: {"cause": "SQLITE_FULL", "error": "database or disk is full"}})
    stored = json.loads(json.dumps(_envelope_dict(envelope)))
    facts = result_of_stored(stored, "wrote")
    assert facts.not_recorded is not None and shown(facts.not_recorded) == "the disk is full"
    unknown = result_of_stored({**stored, UNDO_NOT_RECORDED_KEY: {"cause": "", "error": "disk I/O error"}}, "")
    assert unknown.not_recorded == "disk I/O error"
    assert result_of_stored({"ok": True, "content": "wrote"}, "wrote").not_recorded is None


def test_a_batch_the_log_refuses_half_way_leaves_no_row_and_no_open_transaction(tmp_path: Path) -> None:
    """SQLite rolls back by itself on SQLITE_FULL, not on every error: the store does it, so a
    call's rows are all kept or none, and the next write does not trip on an open transaction."""
    store = ChangeStore(tmp_path / "changes.sqlite3")
    good = ChangeRecord(at=1.0, conversation_id="c", call_id="c1", tool="write_file", path="/a", kind="create",
                        before_sha256=None, before_mode=None, after_sha256=None, restorable=True)
    unbindable = replace(good, call_id="c2", before_mode=cast(int, object()))
    with pytest.raises(sqlite3.ProgrammingError):
        store.add([good, unbindable])
    assert store.for_calls(["c1", "c2"]) == []
    store.add([good])
    assert [r.call_id for r in store.for_calls(["c1"])] == ["c1"]
    store.close()
