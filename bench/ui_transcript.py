"""Opening a long conversation: 1,000 messages with 300 tool cards, from the real SQLite store.

Measures reading the store, rebuilding the transcript model and painting the window, i.e.
clicking the conversation until it is on screen. Target ≤ 500 ms.
Run: QT_QPA_PLATFORM=offscreen python bench/ui_transcript.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui import marshal
from echo_desk.ui.chat_session import ChatSession
from echo_desk.ui.controller import QtHost
from echo_desk.ui.markdown import warm_up
from echo_desk.ui.transcript_view import TranscriptView

MESSAGES = 1000
CARDS = 300
ANSWER = ("Here is what I found in **{n}**:\n\n- the first point\n- the second point\n\n"
          "```python\ndef handler(event):\n    return event.value * {n}  # scaled\n```\n\nAnything else?")
DIFF = "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n"


def fill(store: ConversationStore, conversation_id: str) -> int:
    """150 exchanges with two tool calls each (5 messages, 2 cards), then 125 plain exchanges."""
    cards = 0
    for n in range(150):
        store.append(conversation_id, ChatMessage(role="user", content=f"Please fix items {n} and {n + 1}."))
        calls = tuple(ToolCall(id=f"c{n}-{k}", name="edit_file", arguments=json.dumps({"path": f"/w/f{n}{k}.py"}))
                      for k in range(2))
        store.append(conversation_id, ChatMessage(role="assistant", content="", tool_calls=calls))
        for call in calls:
            envelope = {"schema": "echo_desk_tool_output_v1", "ok": True, "tool": "edit_file",
                        "content": f"edited {call.arguments}", "error": "", "error_kind": "",
                        "file_changes": [{"path": "/w/f.py", "kind": "modify", "diff": DIFF,
                                          "before_sha256": "a", "after_sha256": "b", "truncated": False}]}
            store.append(conversation_id, ChatMessage(role="tool", content=json.dumps(envelope),
                                                      tool_call_id=call.id, name="edit_file"), envelope)
            cards += 1
        store.append(conversation_id, ChatMessage(role="assistant", content=ANSWER.format(n=n)))
    for n in range(125):
        store.append(conversation_id, ChatMessage(role="user", content=f"And what about {n}?"))
        store.append(conversation_id, ChatMessage(role="assistant", content=ANSWER.format(n=n)))
    return cards


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    marshal.install()
    warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        store = ConversationStore(Path(tmp) / "c.sqlite3")
        conversation = store.create("Long one", tmp, "bench")
        other = store.create("Short one", tmp, "bench")
        cards = fill(store, conversation.id)
        session = ChatSession(QtHost())
        session.store = store
        view = TranscriptView()
        view.setModel(session.transcript)
        view.resize(760, 640)
        session.open(other)
        view.show()
        app.processEvents()

        start = time.perf_counter()
        session.open(conversation)
        app.processEvents()
        view.repaint()
        opened = (time.perf_counter() - start) * 1000
        rows = session.transcript.rowCount()
        print(f"conversation of {len(store.messages(conversation.id))} messages ({cards} tool cards, {rows} rows): "
              f"opened and painted in {opened:.0f} ms (target <= 500 ms) {'OK' if opened <= 500 else 'OVER'}")
        # Batched layout measures the remaining rows on later turns of the event loop.
        start = time.perf_counter()
        bar = view.verticalScrollBar()
        stable = 0
        last = -1
        while stable < 5 and time.perf_counter() - start < 10:
            app.processEvents()
            stable = stable + 1 if bar.maximum() == last else 0
            last = bar.maximum()
        at_bottom = bar.value() == bar.maximum()
        print(f"every row measured after a further {(time.perf_counter() - start) * 1000:.0f} ms; "
              f"showing the newest message: {at_bottom}")
        store.close()


if __name__ == "__main__":
    main()
