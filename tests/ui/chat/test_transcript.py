"""The transcript model/view: tool cards through every status, streaming, long histories."""

from __future__ import annotations

import pytest

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.status import ToolStatus
from echo_desk.store.conversations import StoredMessage
from echo_desk.tools.results import ErrorKind, FileChange, FileChangeKind
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript import ASSISTANT, TOOL, TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView

DIFF = "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-old line\n+new line\n"


@pytest.fixture
def view(qtbot):
    model = TranscriptModel()
    model.title_for = lambda name: {"write_note": "Write note"}.get(name, name)
    v = TranscriptView()
    v.setModel(model)
    v.resize(700, 500)
    qtbot.addWidget(v)
    v.show()
    return v


def _envelope(ok: bool, kind: str = "", error: str = "", content: str = "", changes=()) -> Envelope:
    """A real envelope; ``changes`` as the dicts of their JSON form."""
    file_changes = tuple(FileChange(path=c["path"], kind=FileChangeKind(c["kind"]), before_sha256="a",
                                    after_sha256="b", diff=c.get("diff", ""), truncated=c.get("truncated", False))
                         for c in changes)
    return Envelope(ok=ok, tool="write_note", call_id="c1", error_kind=ErrorKind(kind) if kind else None,
                    error=error, content=content, file_changes=file_changes)


def _painted(view: TranscriptView) -> None:
    view.model().flush()
    view.doItemsLayout()
    image = view.grab()  # paints every visible row through the delegate
    assert not image.isNull()


def test_a_tool_card_through_every_status(view):
    model: TranscriptModel = view.model()
    card = model.add_tool_call("c1", "write_note", '{"path": "n.txt"}')
    seen = {}
    for status in (ToolStatus.PENDING, ToolStatus.WAITING_APPROVAL, ToolStatus.RUNNING):
        model.set_tool_status("c1", status)
        _painted(view)
        seen[card.status] = card_html(card, "Write note")
    endings = {
        "done": _envelope(True, content="wrote n.txt", changes=({"path": "/w/n.txt", "kind": "modify", "diff": DIFF},)),
        "failed": _envelope(False, "internal", "disk full"),
        "denied": _envelope(False, "rejected", "the person denied this call: not now"),
        "cancelled": _envelope(False, "cancelled", "cancelled by the person (Stop)"),
    }
    for expected, envelope in endings.items():
        model.set_tool_result("c1", envelope)
        assert card.status == expected
        _painted(view)
        seen[expected] = card_html(card, "Write note")

    labels = {"pending": "Queued", "waiting_approval": "Waiting for approval", "running": "Running", "done": "Done",
              "failed": "Failed", "denied": "Denied", "cancelled": "Cancelled"}
    assert set(seen) == set(labels)
    for status, html in seen.items():
        assert labels[status] in html and "Write note" in html and "write_note" in html
    assert "disk full" in seen["failed"] and "not now" in seen["denied"]
    assert "/w/n.txt" in seen["done"] and "+1" in seen["done"]


def test_clicking_a_card_expands_its_diff(view, qtbot):
    model: TranscriptModel = view.model()
    card = model.add_tool_call("c1", "write_note", "{}")
    model.set_tool_result("c1", _envelope(True, content="ok", changes=({"path": "/w/n.txt", "kind": "modify",
                                                                      "diff": DIFF},)))
    _painted(view)
    collapsed = view.visualRect(model.index(0)).height()
    assert "new line" not in card_html(card, "Write note")
    model.toggle_expanded(0)
    _painted(view)
    assert "new line" in card_html(card, "Write note")
    assert view.visualRect(model.index(0)).height() > collapsed


def test_live_output_and_streamed_text_are_coalesced(view):
    model: TranscriptModel = view.model()
    model.add_tool_call("c1", "run_command", '{"command": "make"}', status=ToolStatus.RUNNING)
    for i in range(50):
        model.append_output("c1", f"line {i}\n")
    for word in ("Hello", " **world**", "\n\n```python\nprint('hi')\n```\n"):
        model.append_text(word)
    assert model.rowCount() == 1  # nothing shown until the coalescing flush
    _painted(view)
    items = model.items()
    assert [i.kind for i in items] == [TOOL, ASSISTANT]
    assert items[0].output.count("\n") == 50
    assert items[1].text.startswith("Hello **world**")


def test_history_rebuilds_cards_from_stored_envelopes(view):
    model: TranscriptModel = view.model()
    call = ToolCall(id="c9", name="write_note", arguments="{}")
    stored = [
        StoredMessage(1, ChatMessage(role="user", content="write it"), None, 0.0),
        StoredMessage(2, ChatMessage(role="assistant", content="", tool_calls=(call,)), None, 0.0),
        StoredMessage(3, ChatMessage(role="tool", content="...", tool_call_id="c9", name="write_note"),
                      {"ok": False, "error_kind": "rejected", "error": "denied", "content": ""}, 0.0),
        StoredMessage(4, ChatMessage(role="assistant", content="OK, I left it."), None, 0.0),
    ]
    model.load_history(stored)
    assert [i.kind for i in model.items()] == ["user", TOOL, ASSISTANT]
    assert model.items()[1].status == "denied"
    _painted(view)


def test_double_clicking_a_card_opens_the_whole_diff(qtbot):
    from echo_desk.ui.chat.chat_window import MainWindow
    from echo_desk.ui.chat.diff_dialog import DiffDialog

    window = MainWindow()
    qtbot.addWidget(window)
    model = window.session.transcript
    model.add_tool_call("c1", "write_note", "{}")
    long_diff = "@@ -1,600 +1,600 @@\n" + "\n".join(f"-a{i}\n+b{i}" for i in range(600))
    model.set_tool_result("c1", _envelope(True, content="ok", changes=(
        {"path": "/w/big.txt", "kind": "modify", "diff": long_diff, "truncated": True},)))
    model.flush()
    window.transcript.open_diff.emit(model.items()[0])  # what a double-click on the card emits
    dialogs = [w for w in window.findChildren(DiffDialog)]
    assert len(dialogs) == 1
    pane = dialogs[0].tabs.widget(0)
    qtbot.waitUntil(lambda: pane.is_loaded, timeout=5000)  # parsed a slice per event-loop turn
    assert pane.parsed.added == 600 and pane.truncated_note.isVisibleTo(dialogs[0])
    dialogs[0].close()


def test_the_whole_diff_names_each_file_as_it_is(qtbot):
    from echo_desk.tools.results import FileChange, FileChangeKind
    from echo_desk.ui.chat.diff_dialog import DiffDialog
    from echo_desk.ui.core.mnemonics import without_mnemonic

    changes = [FileChange(path=f"/w/{name}", kind=FileChangeKind.MODIFY, before_sha256="a" * 64,
                          after_sha256="b" * 64, diff="@@ -1 +1 @@\n-a\n+b\n")
               for name in ("R&D.txt", "x\u202etxt.exe")]
    dialog = DiffDialog("Write note", changes)
    qtbot.addWidget(dialog)
    shown = [without_mnemonic(dialog.tabs.tabText(i)) for i in range(dialog.tabs.count())]
    assert shown == ["R&D.txt", "x⟨U+202E⟩txt.exe"]


def test_keyboard_opens_cards_and_copies(view, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    model: TranscriptModel = view.model()
    card = model.add_tool_call("c1", "write_note", '{"path": "n.txt"}')
    model.set_tool_result("c1", _envelope(True, content="wrote it"))
    _painted(view)
    view.setFocus()
    view.setCurrentIndex(model.index(0))
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert card.expanded
    QTest.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert "wrote it" in QGuiApplication.clipboard().text()


def test_a_denied_card_says_so_in_the_language_of_the_moment_live_and_after_reload(view):
    from echo_desk.agent.envelope import DENIED_KEY
    from echo_desk.ui.core import i18n_qt

    model: TranscriptModel = view.model()
    call = ToolCall(id="c1", name="write_note", arguments="{}")
    card = model.add_tool_call("c1", "write_note", "{}")
    denied = Envelope.failure("write_note", "c1", ErrorKind.REJECTED, "the person denied this call: use b.txt",
                              {DENIED_KEY: {"message": "use b.txt"}})
    model.set_tool_result("c1", denied)
    assert card.denied_note == "use b.txt"
    stored = [StoredMessage(1, ChatMessage(role="assistant", content="", tool_calls=(call,)), None, 0.0),
              StoredMessage(2, ChatMessage(role="tool", content="...", tool_call_id="c1", name="write_note"),
                            {**denied.to_json(), DENIED_KEY: {"message": "use b.txt"}}, 0.0)]
    i18n_qt.apply_language("zh_CN")
    try:
        live = card_html(card, "写入")
        model.load_history(stored)
        reloaded = card_html(model.items()[0], "写入")
        for html in (live, reloaded):
            assert "你已拒绝此调用" in html and "use b.txt" in html and "the person denied" not in html
    finally:
        i18n_qt.apply_language("en")
