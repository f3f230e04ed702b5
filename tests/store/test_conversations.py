"""Conversation storage: CRUD, search, export, migrations, crash safety."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.conversations import MIGRATIONS, ConversationStore


@pytest.fixture
def store(tmp_path: Path):
    s = ConversationStore(tmp_path / "c.sqlite3")
    yield s
    s.close()


def test_create_list_rename_delete(store: ConversationStore) -> None:
    a = store.create("First", workspace="/ws", model="local")
    b = store.create("Second")
    assert [c.id for c in store.list()] == [b.id, a.id]
    store.rename(a.id, "Renamed")
    assert store.get(a.id).title == "Renamed"
    assert store.list()[0].id == a.id  # renaming counts as activity
    store.append(a.id, ChatMessage(role="user", content="hi"))
    store.delete(a.id)
    assert store.get(a.id) is None and store.messages(a.id) == []


def test_search_matches_titles_and_message_text(store: ConversationStore) -> None:
    a = store.create("Trip plans")
    b = store.create("Untitled")
    store.append(b.id, ChatMessage(role="user", content="what is in notes.txt?"))
    assert [c.id for c in store.list("trip")] == [a.id]
    assert [c.id for c in store.list("NOTES")] == [b.id]


def test_messages_round_trip_with_tool_calls_and_envelopes(store: ConversationStore) -> None:
    c = store.create("t")
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "notes.txt"}')
    store.append(c.id, ChatMessage(role="assistant", content="", tool_calls=(call,)))
    env = {"ok": True, "content": "hello", "tool": "read_file"}
    store.append(c.id, ChatMessage(role="tool", content=json.dumps(env), tool_call_id="c1", name="read_file"), env)
    stored = store.messages(c.id)
    assert stored[0].message.tool_calls == (call,)
    assert stored[1].envelope == env and stored[1].message.tool_call_id == "c1"
    markdown = store.export_markdown(c.id)
    assert "**Tool call** `read_file`" in markdown and '"path": "notes.txt"' in markdown and "hello" in markdown


def test_newer_schema_is_refused_not_damaged(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    ConversationStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    with pytest.raises(RuntimeError, match="newer Echo Desk"):
        ConversationStore(path)


def test_old_schema_is_migrated_forward_keeping_data(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as conn:
        MIGRATIONS[0](conn)
        conn.execute("PRAGMA user_version = 1")
        conn.execute("INSERT INTO conversations VALUES ('x', 'old', '', '', 1, 1)")
    store = ConversationStore(path)
    assert store.schema_version == len(MIGRATIONS)
    assert store.get("x").title == "old"
    store.close()


def test_placeholder_titles_of_either_language_become_untitled(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as conn:
        MIGRATIONS[0](conn)
        MIGRATIONS[1](conn)
        conn.execute("PRAGMA user_version = 2")
        conn.executemany("INSERT INTO conversations VALUES (?, ?, '', '', 1, 1)",
                         [("en", "New conversation"), ("zh", "新对话"), ("named", "Groceries")])
    store = ConversationStore(path)
    assert [store.get(i).title for i in ("en", "zh", "named")] == ["", "", "Groceries"]
    store.close()


def test_a_killed_process_loses_nothing_already_appended(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    script = f"""
import os
from echo_desk.store.conversations import ConversationStore
from echo_desk.agent.model import ChatMessage
s = ConversationStore({str(path)!r})
c = s.create("crash")
for i in range(50):
    s.append(c.id, ChatMessage(role="user", content=f"m{{i}}"))
print(c.id, flush=True)
os.kill(os.getpid(), 9)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    cid = out.stdout.strip()
    store = ConversationStore(path)
    assert [m.message.content for m in store.messages(cid)] == [f"m{i}" for i in range(50)]
    store.close()


def test_a_saved_tool_message_takes_a_newer_envelope_in_place(store: ConversationStore) -> None:
    """Its call learned more after it was saved (a sandbox checked later): the stored envelope is
    replaced, redacted as a new one; what the model was told and the list's order stay."""
    older, newer = store.create("older"), store.create("newer")
    store.append(older.id, ChatMessage(role="assistant", tool_calls=(ToolCall(id="c1", name="run", arguments="{}"),)),
                 node="a1")
    store.append(older.id, ChatMessage(role="tool", content='{"ok": true}', tool_call_id="c1"), {"content": "first"},
                 node="t1")
    store.append(newer.id, ChatMessage(role="user", content="hi"))
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123"
    assert store.replace_envelope(older.id, "t1", {"content": "checked", "note": f"export GITHUB_TOKEN={token}"})
    [_call, tool] = store.messages(older.id)
    assert tool.envelope is not None and tool.envelope["content"] == "checked"
    assert token not in json.dumps(tool.envelope) and tool.message.content == '{"ok": true}'
    assert [c.id for c in store.list()] == [newer.id, older.id]
    # Only a tool message of that conversation.
    assert not store.replace_envelope(older.id, "a1", {"content": "x"})
    assert not store.replace_envelope(newer.id, "t1", {"content": "x"})
    assert store.messages(older.id)[0].envelope is None
