"""Branches in the conversation store: an edit or a regenerated answer forks the conversation,
nothing is deleted, the chosen branch is remembered; a database from before branches opens
with every conversation whole, as one branch."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.answer_stats import AnswerStats
from echo_desk.store.conversations import MIGRATIONS, ConversationStore


@pytest.fixture
def store(tmp_path: Path):
    s = ConversationStore(tmp_path / "c.sqlite3")
    yield s
    s.close()


def _say(role: str, text: str) -> ChatMessage:
    return ChatMessage(role=role, content=text)  # type: ignore[arg-type]


def _texts(store: ConversationStore, cid: str) -> list[str]:
    return [m.message.content for m in store.messages(cid)]


def test_a_database_from_before_branches_keeps_every_conversation_in_order(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    # A version-3 database written the way the app wrote it then (plain INSERTs, no tree columns).
    with sqlite3.connect(path) as conn:
        for migration in MIGRATIONS[:3]:
            migration(conn)
        conn.execute("PRAGMA user_version = 3")
        for cid, title in (("a", "First"), ("b", "Second")):
            conn.execute("INSERT INTO conversations VALUES (?,?,?,?,?,?)", (cid, title, "/ws", "local", 1.0, 2.0))
        rows = [("a", "user", "one"), ("b", "user", "uno"), ("a", "assistant", "two"),
                ("a", "user", "three"), ("b", "assistant", "dos"), ("a", "assistant", "four")]
        for cid, role, text in rows:
            conn.execute("INSERT INTO messages (conversation_id, role, content, created) VALUES (?,?,?,?)",
                         (cid, role, text, 1.5))
    conn.close()

    store = ConversationStore(path)
    try:
        assert store.schema_version == len(MIGRATIONS) >= 4
        assert {c.id: c.title for c in store.list()} == {"a": "First", "b": "Second"}
        assert _texts(store, "a") == ["one", "two", "three", "four"]
        assert _texts(store, "b") == ["uno", "dos"]
        first, *_rest = store.messages("a")
        assert first.parent is None and all(m.stats is None for m in store.messages("a"))
        # It goes on where it stopped, and can be forked like a new one.
        store.append("a", _say("user", "five"))
        assert _texts(store, "a") == ["one", "two", "three", "four", "five"]
        three = store.messages("a")[2]
        store.append("a", _say("user", "three, edited"), parent=three.parent)
        assert _texts(store, "a") == ["one", "two", "three, edited"]
        assert store.tree("a").position(three.node).count == 2
    finally:
        store.close()


def test_a_migration_that_fails_midway_leaves_the_old_database_whole(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        for migration in MIGRATIONS[:3]:
            migration(conn)
        conn.execute("PRAGMA user_version = 3")
        conn.execute("INSERT INTO conversations VALUES ('a','t','','',1.0,1.0)")
        conn.execute("INSERT INTO messages (conversation_id, role, content, created) VALUES ('a','user','kept',1.0)")
    conn.close()
    import echo_desk.store.conversations as conversations

    def crash(conn: sqlite3.Connection) -> None:
        MIGRATIONS[3](conn)
        raise OSError("disk full")

    monkeypatch.setattr(conversations, "MIGRATIONS", [*MIGRATIONS[:3], crash])
    with pytest.raises(OSError):
        ConversationStore(path)
    monkeypatch.undo()
    with sqlite3.connect(path) as conn:  # rolled back: still version 3, without the new columns
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert "node" not in {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
    conn.close()
    store = ConversationStore(path)  # and the next start migrates it
    try:
        assert store.schema_version == len(MIGRATIONS) and _texts(store, "a") == ["kept"]
    finally:
        store.close()


def test_an_edit_forks_and_switching_back_restores_the_old_turns(store: ConversationStore) -> None:
    cid = store.create("t").id
    store.append(cid, _say("user", "q1"), node="u1", parent=None)
    store.append(cid, _say("assistant", "a1"), node="a1", parent="u1")
    store.append(cid, _say("user", "q2"), node="u2", parent="a1")
    store.append(cid, _say("assistant", "a2"), node="a2", parent="u2")
    # The second question edited: a sibling of u2, with its own answer.
    store.append(cid, _say("user", "q2 edited"), node="u2b", parent="a1")
    store.append(cid, _say("assistant", "a2b"), node="a2b", parent="u2b")
    assert _texts(store, cid) == ["q1", "a1", "q2 edited", "a2b"]
    tree = store.tree(cid)
    assert tree.position("u2b").index == 2 and tree.position("u2b").count == 2
    assert tree.position("u2b").step(-1) == "u2" and tree.position("u2b").step(+1) is None

    assert [m.message.content for m in store.choose(cid, "u2")] == ["q1", "a1", "q2", "a2"]
    assert _texts(store, cid) == ["q1", "a1", "q2", "a2"]  # remembered, not only returned
    store.append(cid, _say("user", "q3"))  # the default parent is the end of the chosen branch
    assert _texts(store, cid) == ["q1", "a1", "q2", "a2", "q3"]
    assert _texts(store, cid) == [m.message.content for m in store.messages(cid)]
    assert len(store.tree(cid).children("a1")) == 2  # nothing was deleted


def test_a_branch_remembers_the_choice_made_inside_it(store: ConversationStore) -> None:
    cid = store.create("t").id
    store.append(cid, _say("user", "q"), node="u", parent=None)
    store.append(cid, _say("assistant", "A"), node="A", parent="u")
    store.append(cid, _say("user", "x"), node="x", parent="A")
    store.append(cid, _say("user", "y"), node="y", parent="A")  # an edit inside branch A
    store.choose(cid, "x")
    store.append(cid, _say("assistant", "B"), node="B", parent="u")  # a regenerated answer
    assert _texts(store, cid) == ["q", "B"]
    # Back to the first answer: its own later choice (x, not the newer y) comes back with it.
    assert [m.message.content for m in store.choose(cid, "A")] == ["q", "A", "x"]


def test_answer_stats_are_stored_with_the_message(store: ConversationStore) -> None:
    cid = store.create("t").id
    stats = AnswerStats(input_tokens=120, output_tokens=40, elapsed_seconds=2.0, first_token_seconds=0.4)
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    store.append(cid, ChatMessage(role="assistant", content="ok", tool_calls=(call,)), stats=stats)
    store.append(cid, _say("user", "thanks"))
    kept = store.messages(cid)
    assert kept[0].stats == stats and kept[0].message.tool_calls == (call,)
    assert kept[1].stats is None
    assert stats.tokens_per_second == pytest.approx(25.0)


def test_choosing_an_unknown_message_changes_nothing(store: ConversationStore) -> None:
    cid = store.create("t").id
    store.append(cid, _say("user", "q"))
    with pytest.raises(KeyError):
        store.choose(cid, "nope")
    assert _texts(store, cid) == ["q"]
