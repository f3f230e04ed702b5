"""Search across conversations: the FTS5 trigram index, short terms, Chinese, snippets, migration."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from echo_desk.agent.model import ChatMessage
from echo_desk.store import message_search
from echo_desk.store.conversations import MIGRATIONS, ConversationStore
from echo_desk.store.message_search import make_snippet, search_terms, trigram_available


@pytest.fixture
def store(tmp_path: Path):
    s = ConversationStore(tmp_path / "c.sqlite3")
    yield s
    s.close()


def _say(store: ConversationStore, cid: str, role: str, text: str) -> int:
    return store.append(cid, ChatMessage(role=role, content=text))


def test_this_sqlite_has_fts5_with_the_trigram_tokenizer() -> None:
    # The app's Python (Debian 12: SQLite 3.40) must take the indexed path, not the scan.
    assert trigram_available(sqlite3.connect(":memory:"))


def test_english_words_are_found_case_insensitively_with_a_marked_snippet(store) -> None:
    a = store.create("Trip")
    b = store.create("Work")
    _say(store, a.id, "user", "Book a hotel in Lisbon for the weekend")
    wanted = _say(store, b.id, "assistant", "The quarterly REPORT is in reports/q3.md, " + "filler " * 40)
    hits = store.search("report")
    assert [(h.conversation_id, h.message_id, h.role) for h in hits] == [(b.id, wanted, "assistant")]
    assert hits[0].snippet.matches == ("REPORT", "report")
    assert hits[0].snippet.text.startswith("The quarterly REPORT") and hits[0].snippet.text.endswith("…")
    assert hits[0].title == "Work"


def test_every_word_must_be_in_the_message(store) -> None:
    c = store.create("")
    both = _say(store, c.id, "user", "hotel in Lisbon")
    _say(store, c.id, "user", "hotel in Porto")
    assert [h.message_id for h in store.search("lisbon HOTEL")] == [both]
    assert store.search("lisbon madrid") == []


def test_chinese_two_character_words_are_found(store) -> None:
    c = store.create("")
    weather = _say(store, c.id, "user", "今天天气怎么样？我想去公园散步。")
    _say(store, c.id, "assistant", "北京明天有雨，记得带伞。")
    hits = store.search("天气")
    assert [h.message_id for h in hits] == [weather]
    assert hits[0].snippet.matches == ("天气",)
    assert [h.message_id for h in store.search("天气怎么样")] == [weather]  # through the trigram index
    assert [h.message_id for h in store.search("公园 天气")] == [weather]  # a short and a long-enough word
    assert [len(store.search(q)) for q in ("雨", "带伞", "下雪")] == [1, 1, 0]


def test_one_and_two_letter_terms_and_special_characters(store) -> None:
    c = store.create("")
    ok = _say(store, c.id, "user", "is it OK to run rm -rf build/ with 100% of the \"quota\"?")
    _say(store, c.id, "user", "nothing here")
    assert [h.message_id for h in store.search("ok")] == [ok]
    assert [h.message_id for h in store.search("100%")] == [ok]
    assert [h.message_id for h in store.search('"quota"')] == [ok]
    assert [h.message_id for h in store.search("-rf")] == [ok]
    assert store.search("   ") == []


def test_tool_results_are_searched_by_their_content_not_their_json(store) -> None:
    c = store.create("")
    envelope = {"schema": "echo_desk_tool_output_v1", "ok": True, "tool": "read_file", "content": "milk, eggs"}
    mid = store.append(c.id, ChatMessage(role="tool", content=json.dumps(envelope), tool_call_id="c1",
                                         name="read_file"), envelope)
    assert [h.message_id for h in store.search("eggs")] == [mid]
    assert store.search("echo_desk_tool_output") == []


def test_titles_match_first_and_deleted_conversations_leave_the_index(store) -> None:
    a = store.create("Lisbon trip")
    b = store.create("")
    _say(store, b.id, "user", "flights to Lisbon")
    hits = store.search("lisbon")
    assert (hits[0].conversation_id, hits[0].message_id) == (a.id, 0)
    assert [h.conversation_id for h in hits[1:]] == [b.id]
    store.delete(b.id)
    assert [h.conversation_id for h in store.search("lisbon")] == [a.id]
    count = store._conn.execute(f"SELECT count(*) FROM {message_search.SEARCH_TABLE}").fetchone()[0]
    assert count == 0


def test_an_old_database_is_indexed_when_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        for step in MIGRATIONS[:3]:
            step(conn)
        conn.execute("PRAGMA user_version = 3")
        conn.execute("INSERT INTO conversations VALUES ('x', 'old', '', '', 1, 1)")
        conn.executemany("INSERT INTO messages (conversation_id, role, content, created) VALUES ('x', ?, ?, 1)",
                         [("user", "where did I park the bicycle"), ("assistant", "在地下车库"),
                          ("system", "system prompt bicycle")])
    store = ConversationStore(path)
    assert store.schema_version == len(MIGRATIONS)
    assert [h.role for h in store.search("bicycle")] == ["user"]  # the system prompt is not searched
    assert [h.role for h in store.search("车库")] == ["assistant"]
    store.close()
    # Opening again neither re-indexes nor duplicates.
    store = ConversationStore(path)
    assert len(store.search("bicycle")) == 1
    store.close()


def test_without_trigram_support_a_scan_gives_the_same_answers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(message_search, "trigram_available", lambda conn: False)  # an SQLite without it
    store = ConversationStore(tmp_path / "plain.sqlite3")
    assert not message_search.has_index(store._conn)
    c = store.create("")
    first = _say(store, c.id, "user", "今天天气很好 and the REPORT is due")
    second = _say(store, c.id, "user", "another report")
    assert [h.message_id for h in store.search("天气")] == [first]
    assert [h.message_id for h in store.search("report due")] == [first]
    assert [h.message_id for h in store.search("report")] == [second, first]
    store.close()


def test_snippet_marks_every_match_and_terms_are_deduplicated() -> None:
    snippet = make_snippet("Tea or\n\ncoffee? TEA, please.", ["tea"])
    assert snippet.parts == (("Tea", True), (" or coffee? ", False), ("TEA", True), (", please.", False))
    assert search_terms("tea  TEA\u3000咖啡") == ["tea", "咖啡"]
    long = make_snippet("x" * 200 + " needle " + "y" * 200, ["needle"])
    assert long.text.startswith("…") and long.text.endswith("…") and long.matches == ("needle",)
    words = make_snippet("one two three four five six seven eight nine ten eleven twelve needle", ["needle"])
    assert words.text == "…eight nine ten eleven twelve needle"  # starts at a word, not in "seven"


def test_a_changed_message_is_found_by_its_new_text_only(store) -> None:
    c = store.create("")
    mid = _say(store, c.id, "user", "the old wording")
    with store._conn:  # as an edit in place would (the store has no edit yet)
        store._conn.execute("UPDATE messages SET content = 'the new phrasing 新的说法' WHERE id = ?", (mid,))
    assert store.search("wording") == []
    assert [h.message_id for h in store.search("phrasing")] == [mid]
    assert [h.message_id for h in store.search("说法")] == [mid]
