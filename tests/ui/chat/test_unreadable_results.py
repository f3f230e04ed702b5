"""A stored tool result that does not read back (changed by hand, a broken write, an older format)
reopens as a card that says it could not show that part, with the raw JSON: the conversation
opens, every row paints, Copy gives the raw text. On the old code it raised (at load or at paint)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.conversations import ConversationStore, StoredMessage
from echo_desk.tools.results import FileChange, FileChangeKind
from echo_desk.ui.chat.transcript import TOOL, TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView

GOOD = FileChange(path="/w/notes.txt", kind=FileChangeKind.MODIFY, before_sha256="a", after_sha256="b",
                  diff="@@ -1 +1 @@\n-old\n+new\n")


def _conversation(path: Path, envelope_text: str) -> list[StoredMessage]:
    """A conversation with one call whose stored envelope is then overwritten with ``envelope_text``
    in the SQLite file itself, as a hand edit or a broken write would leave it."""
    store = ConversationStore(path)
    conversation = store.create("notes")
    store.append(conversation.id, ChatMessage(role="user", content="edit my notes"))
    call = ToolCall(id="c1", name="write_note", arguments='{"path": "notes.txt"}')
    store.append(conversation.id, ChatMessage(role="assistant", content="", tool_calls=(call,)))
    envelope = Envelope(ok=True, tool="write_note", call_id="c1", content="wrote it", file_changes=(GOOD,))
    store.append(conversation.id, ChatMessage(role="tool", content=envelope.to_text(), tool_call_id="c1",
                                              name="write_note"), envelope.to_json())
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE messages SET envelope = ? WHERE role = 'tool'", (envelope_text,))
    reopened = ConversationStore(path)
    try:
        return reopened.messages(conversation.id)
    finally:
        reopened.close()


@pytest.mark.parametrize(("envelope", "said"), [
    ({"ok": True, "content": "wrote it", "file_changes": ["/w/notes.txt", GOOD.to_json()]}, "a file change"),
    ({"ok": True, "content": "wrote it", "transcript": {"call": "read_note"}}, "the sub-agent's transcript"),
    ({"ok": True, "content": "wrote it", "grid": {"columns": "id"}}, "the result table"),
    ({"ok": True, "content": "wrote it", "sandbox": ["bwrap"]}, "where the command ran"),
    (["an", "envelope", "that", "is", "a", "list"], "this result"),
])
def test_a_malformed_stored_result_opens_as_a_could_not_show_card(qtbot, tmp_path: Path, envelope: object,
                                                                  said: str) -> None:
    stored = _conversation(tmp_path / "conversations.sqlite3", json.dumps(envelope))
    model = TranscriptModel()
    model.load_history(stored)
    view = TranscriptView()
    view.setModel(model)
    view.resize(700, 600)
    qtbot.addWidget(view)
    view.show()
    view.doItemsLayout()
    assert not view.grab().isNull()  # every row painted through the delegate
    card = next(i for i in model.items() if i.kind == TOOL)
    text = view.itemDelegate().document(card).toPlainText()
    assert f"Could not show {said}: it is not in a form Echo Desk can read. As received:" in text
    raw = card.unreadable[0].raw
    assert json.loads(raw) is not None and raw[:40] in text
    view.copy_item(card)
    assert raw in QGuiApplication.clipboard().text()  # nothing lost: the raw JSON, whole
