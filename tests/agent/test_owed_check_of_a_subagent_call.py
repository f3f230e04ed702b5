"""A sub-agent's sandboxed command whose check Echo Desk still owed when it was closed: the check
made at the next start is written into the call's step of the saved ``delegate`` transcript (the
sub-agent's call has no message of its own), so the reopened delegate card says what was found
there, as a top-level card does. Before, the step kept saying its check was still to come.
Real SQLite, a real git repository whose hook was planted after the kept snapshot."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from echo_desk.agent.delegate import _result_entry
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.owed_checks import UpdatedCard, make_owed_checks
from echo_desk.store.audit import AuditLog
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of

STILL_RAN = {"sandboxed": True, "mode": "sandboxed", "domains": [], "blocked": [], "planted": [],
             "checked_later": True}


def saved_delegate_call(conversations: ConversationStore, nested_call: str = "k1",
                        sandbox: dict[str, Any] | None = STILL_RAN) -> str:
    """A conversation whose ``delegate`` call d1 ran ``run_command`` (``nested_call``) in its
    sub-agent, saved as the chat saves it: the step's sandbox still to be checked. Its id."""
    conversation = conversations.create("saved")
    call = ToolCall(id="d1", name="delegate", arguments="{}")
    conversations.append(conversation.id, ChatMessage(role="assistant", tool_calls=(call,)), node="a1")
    nested = Envelope(ok=True, tool="run_command", call_id=nested_call, content="ran",
                      metadata={} if sandbox is None else {"sandbox": sandbox})
    transcript = [{"call": "run_command", "arguments": "{}", "id": nested_call}, _result_entry(nested_call, nested),
                  {"assistant": "It ran."}]
    conversations.append(conversation.id, ChatMessage(role="tool", content="It ran.", tool_call_id="d1"),
                         {"ok": True, "tool": "delegate", "content": "It ran.", "transcript": transcript}, node="t1")
    return str(conversation.id)


def owe_a_planted_hook(tmp_path: Path, conversation_id: str, call_id: str = "k1") -> tuple[OwedChecksStore, Path]:
    """The check of ``call_id`` owed by a gone process; its command planted a pre-commit hook."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    store.owe(conversation_id=conversation_id, call_id=call_id, tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "put-aside"))
    owed_by_a_gone_process(store)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    return store, hook


def _make(tmp_path: Path, store: OwedChecksStore, conversations: ConversationStore) -> list[UpdatedCard]:
    updated: list[UpdatedCard] = []
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit, conversations, updated) == 1
    finally:
        audit.close()
    return updated


def _step_sandbox(envelope: dict[str, Any], call_id: str = "k1") -> dict[str, Any]:
    [entry] = [e for e in envelope["transcript"] if e.get("result") == call_id]
    sandbox = entry["sandbox"]
    assert isinstance(sandbox, dict)
    return sandbox


def test_the_check_made_at_a_start_is_written_into_the_sub_agents_step_of_the_saved_delegate_call(
        tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = saved_delegate_call(conversations)
        store, hook = owe_a_planted_hook(tmp_path, conversation_id)
        updated = _make(tmp_path, store, conversations)
        found = conversations.tool_envelope(conversation_id, "d1")
    finally:
        conversations.close()
    assert not hook.exists()
    assert found is not None
    facts = _step_sandbox(found[1])
    assert facts["checked_after_restart"] is True and facts["checked_later"] is False
    assert [(p["path"], p["change"], p["workspace"]) for p in facts["planted"]] == [
        (".git/hooks/pre-commit", "created", str(tmp_path / "project"))]
    assert found[1]["content"] == "It ran." and found[1]["transcript"][-1] == {"assistant": "It ran."}
    # The chat open on it is handed the delegate call's envelope (its card is d1's, not k1's).
    assert [(u.conversation_id, u.call_id) for u in updated] == [(conversation_id, "d1")]
    assert updated[0].envelope == found[1]


def test_a_check_that_could_not_be_made_says_why_in_the_sub_agents_step(tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = saved_delegate_call(conversations)
        store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
        store.owe(conversation_id=conversation_id, call_id="k1", tool="run_command", workspace="/ws",
                  snapshot=b"not a snapshot")
        owed_by_a_gone_process(store)
        _make(tmp_path, store, conversations)
        found = conversations.tool_envelope(conversation_id, "d1")
    finally:
        conversations.close()
    assert found is not None
    facts = _step_sandbox(found[1])
    assert facts["checked_after_restart"] is True and facts["not_checked_after_restart"] == "unreadable_row"


def test_a_top_level_call_of_the_same_id_without_sandbox_facts_does_not_hide_the_sub_agents_step(
        tmp_path: Path) -> None:
    """Call ids are the model's: a parent's read_file may share one with its sub-agent's command."""
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = saved_delegate_call(conversations)
        same = ToolCall(id="k1", name="read_file", arguments="{}")
        conversations.append(conversation_id, ChatMessage(role="assistant", tool_calls=(same,)), node="a2")
        conversations.append(conversation_id, ChatMessage(role="tool", content="text", tool_call_id="k1"),
                             {"ok": True, "tool": "read_file", "content": "text"}, node="t2")
        store, _hook = owe_a_planted_hook(tmp_path, conversation_id)
        updated = _make(tmp_path, store, conversations)
        found = conversations.tool_envelope(conversation_id, "d1")
        read = conversations.tool_envelope(conversation_id, "k1")
    finally:
        conversations.close()
    assert found is not None and read is not None
    assert _step_sandbox(found[1])["checked_after_restart"] is True
    assert read[1] == {"ok": True, "tool": "read_file", "content": "text"}
    assert [u.call_id for u in updated] == ["d1"]


def test_a_step_without_sandbox_facts_and_a_call_saved_nowhere_are_left_alone(tmp_path: Path) -> None:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation_id = saved_delegate_call(conversations, sandbox=None)  # (not a sandboxed tool)
        before = conversations.tool_envelope(conversation_id, "d1")
        store, _hook = owe_a_planted_hook(tmp_path, conversation_id)
        assert _make(tmp_path, store, conversations) == []
        assert conversations.tool_envelope(conversation_id, "d1") == before
        assert conversations.tool_envelope_holding(conversation_id, "nowhere") is None
    finally:
        conversations.close()
