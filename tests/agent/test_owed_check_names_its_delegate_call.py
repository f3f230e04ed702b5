"""The owed check of a sub-agent's command names the ``delegate`` calls holding its step
(``OwedCheck.held_by``), so the check made at the next start is written into that step: not into
another sub-agent's step of the same call id (call ids are the model's), and, for a sub-agent
started by a sub-agent, into the transcript nested in its parent's step. A row kept before it
named them is still looked for. Real SQLite, a real git repository whose hook was planted after
the kept snapshot."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from echo_desk.agent.delegate import _result_entry
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.owed_checks import UpdatedCard, make_owed_checks
from echo_desk.builtins.shell.run_command import _owe_check
from echo_desk.sandbox import inventory
from echo_desk.sandbox.guard import Guard
from echo_desk.store.audit import AuditLog
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.tools import ToolExecutionContext
from tests.agent.test_owed_check_of_a_subagent_call import STILL_RAN
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of


def _steps(nested_call: str) -> list[dict[str, Any]]:
    """A sub-agent's transcript: it ran ``run_command`` (``nested_call``), whose check was to come."""
    nested = Envelope(ok=True, tool="run_command", call_id=nested_call, content="ran", metadata={"sandbox": STILL_RAN})
    return [{"call": "run_command", "arguments": "{}", "id": nested_call}, _result_entry(nested_call, nested),
            {"assistant": "It ran."}]


def _save_delegate(conversations: ConversationStore, conversation_id: str, call_id: str,
                   transcript: list[dict[str, Any]]) -> None:
    call = ToolCall(id=call_id, name="delegate", arguments="{}")
    conversations.append(conversation_id, ChatMessage(role="assistant", tool_calls=(call,)), node=f"a-{call_id}")
    conversations.append(conversation_id, ChatMessage(role="tool", content="It ran.", tool_call_id=call_id),
                         {"ok": True, "tool": "delegate", "content": "It ran.", "transcript": transcript},
                         node=f"t-{call_id}")


def _owe(tmp_path: Path, conversation_id: str, held_by: tuple[str, ...] | None) -> OwedChecksStore:
    """The check of call k1 owed by a gone process; its command planted a pre-commit hook."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    store.owe(conversation_id=conversation_id, call_id="k1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "put-aside"), held_by=held_by)
    owed_by_a_gone_process(store)
    (workspace / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho planted\n")
    return store


def _make(tmp_path: Path, store: OwedChecksStore, conversations: ConversationStore) -> list[UpdatedCard]:
    updated: list[UpdatedCard] = []
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit, conversations, updated) == 1
    finally:
        audit.close()
    return updated


def _checked(transcript: list[dict[str, Any]]) -> bool:
    [entry] = [e for e in transcript if e.get("result") == "k1"]
    return bool(entry["sandbox"].get("checked_after_restart"))


def _saved(conversations: ConversationStore, conversation_id: str, call_id: str) -> dict[str, Any]:
    found = conversations.tool_envelope(conversation_id, call_id)
    assert found is not None
    return found[1]


def test_two_sub_agents_with_the_same_call_id_the_one_named_by_the_row_is_updated(tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = str(conversations.create("two sub-agents").id)
        _save_delegate(conversations, conversation_id, "d1", _steps("k1"))  # its k1 owed the check
        _save_delegate(conversations, conversation_id, "d2", _steps("k1"))  # (newer, same nested id)
        store = _owe(tmp_path, conversation_id, held_by=("d1",))
        updated = _make(tmp_path, store, conversations)
        first, second = (_saved(conversations, conversation_id, d) for d in ("d1", "d2"))
    finally:
        conversations.close()
    assert _checked(first["transcript"]) and not _checked(second["transcript"])
    assert [(u.call_id, u.envelope) for u in updated] == [("d1", first)]


def test_a_sub_agents_sub_agent_has_its_step_updated_in_the_transcript_nested_in_its_parents_step(
        tmp_path: Path) -> None:
    inner = Envelope(ok=True, tool="delegate", call_id="e1", content="It ran.", metadata={"transcript": _steps("k1")})
    outer = [{"call": "delegate", "arguments": "{}", "id": "e1"}, _result_entry("e1", inner), {"assistant": "Done."}]
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = str(conversations.create("nested").id)
        _save_delegate(conversations, conversation_id, "d1", outer)
        store = _owe(tmp_path, conversation_id, held_by=("d1", "e1"))
        updated = _make(tmp_path, store, conversations)
        saved = _saved(conversations, conversation_id, "d1")
    finally:
        conversations.close()
    [step] = [e for e in saved["transcript"] if e.get("result") == "e1"]
    assert _checked(step["transcript"])
    assert [(p["path"], p["change"]) for p in
            next(e for e in step["transcript"] if e.get("result") == "k1")["sandbox"]["planted"]] == [
        (".git/hooks/pre-commit", "created")]
    assert saved["transcript"][-1] == {"assistant": "Done."} and step["envelope"]["tool"] == "delegate"
    assert [(u.call_id, u.envelope) for u in updated] == [("d1", saved)]


def test_a_named_delegate_call_saved_nowhere_is_not_mistaken_for_another(tmp_path: Path) -> None:
    """d1 was not saved (a kill while its sub-agent ran): d2's step of the same id stays as it was."""
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = str(conversations.create("one saved").id)
        _save_delegate(conversations, conversation_id, "d2", _steps("k1"))
        before = _saved(conversations, conversation_id, "d2")
        store = _owe(tmp_path, conversation_id, held_by=("d1",))
        assert _make(tmp_path, store, conversations) == []
        assert _saved(conversations, conversation_id, "d2") == before
    finally:
        conversations.close()


def test_a_conversations_own_call_is_not_looked_for_in_a_sub_agents_transcript(tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = str(conversations.create("own call").id)
        _save_delegate(conversations, conversation_id, "d1", _steps("k1"))
        before = _saved(conversations, conversation_id, "d1")
        store = _owe(tmp_path, conversation_id, held_by=())  # (its own message was never saved)
        assert _make(tmp_path, store, conversations) == []
        assert _saved(conversations, conversation_id, "d1") == before
    finally:
        conversations.close()


def test_a_row_kept_before_the_column_reads_back_as_not_saying_and_is_still_looked_for(tmp_path: Path) -> None:
    path = tmp_path / OWED_CHECKS_FILE
    with sqlite3.connect(path) as conn:  # the file as kept before ``held_by`` was added
        conn.execute("CREATE TABLE owed_checks (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL,"
                     " owner TEXT NOT NULL, conversation_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL,"
                     " workspace TEXT NOT NULL, snapshot BLOB, state TEXT NOT NULL DEFAULT 'owed', checked_at REAL,"
                     " planted TEXT NOT NULL DEFAULT '[]', error TEXT NOT NULL DEFAULT '',"
                     " server TEXT NOT NULL DEFAULT '', client TEXT NOT NULL DEFAULT '')")
        conn.execute("INSERT INTO owed_checks (at, owner, conversation_id, call_id, tool, workspace, snapshot)"
                     " VALUES (1, '1:1', 'c', 'k1', 'run_command', '/ws', x'00')")
    conn.close()
    store = OwedChecksStore(path)
    [row] = store.owed()
    assert row.held_by is None
    store.owe(conversation_id="c", call_id="k2", tool="run_command", workspace="/ws", snapshot=b"", held_by=("d", "e"))
    store.owe(conversation_id="c", call_id="k3", tool="run_command", workspace="/ws", snapshot=b"", held_by=())
    owed_by_a_gone_process(store)
    assert [(c.call_id, c.held_by) for c in store.owed()] == [("k1", None), ("k2", ("d", "e")), ("k3", ())]


def test_run_command_keeps_the_delegate_calls_its_context_names_with_the_owed_check(tmp_path: Path) -> None:
    """The dispatcher gives a sub-agent's call its scope's ``delegate`` calls (``held_by``):
    ``run_command`` keeps them with the check it owes before its command starts."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    guard = Guard.before(inventory.take(workspace, home=home), home=home, put_aside=tmp_path / "put-aside")
    launch = SimpleNamespace(guards=[guard], placeholders=[])
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    for call_id, held_by in (("k1", ("d1", "e1")), ("k2", ())):
        ctx = ToolExecutionContext(call_id=call_id, tool_name="run_command", scope_id="s", conversation_id="c",
                                   held_by=held_by)
        assert _owe_check(store, launch, ctx) is not None  # type: ignore[arg-type]
    owed_by_a_gone_process(store)
    assert [(c.call_id, c.held_by) for c in store.owed()] == [("k1", ("d1", "e1")), ("k2", ())]
