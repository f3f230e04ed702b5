"""Search across conversations, Ctrl+F in a conversation, and the keyboard: a real window, a
real store, real key presses through Qt's shortcut map."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QFileDialog,
    QListView,
    QMessageBox,
    QWidget,
)

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.i18n import _ as tr
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.transcript_find import row_of_message
from echo_desk.ui.chat.window_shortcuts import ACTIONS, key_text
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel

CTRL, SHIFT, ALT = (Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier,
                    Qt.KeyboardModifier.AltModifier)


@pytest.fixture
def window(qtbot, qloop, runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    win.show()
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)
    yield win
    win.session.stop()
    store.close()


def _conversation(window: MainWindow, title: str, texts: list[str]) -> tuple[str, list[int]]:
    store = window.services.conversations
    conv = store.create(title)
    ids = [store.append(conv.id, ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))
           for i, text in enumerate(texts)]
    window.conversations.reload(window.session.conversation.id)
    return conv.id, ids


def _search(qtbot, window: MainWindow, text: str) -> None:
    QTest.keyClick(window, Qt.Key.Key_F, CTRL | SHIFT)
    assert window.conversations.search.hasFocus()
    if text.isascii():
        QTest.keyClicks(window.conversations.search, text)
    else:  # typed through an input method: the text arrives whole
        window.conversations.search.insert(text)
    qtbot.waitUntil(lambda: window.conversations.results.query == text)  # after typing pauses


def _row_in_view(window: MainWindow, row: int) -> bool:
    rect = window.transcript.visualRect(window.session.transcript.index(row))
    return rect.isValid() and window.transcript.viewport().rect().intersects(rect)


def _has_colour(widget: QWidget, colour: str) -> bool:
    image = widget.grab().toImage()
    wanted = QColor(colour).rgb()
    return any(image.pixel(x, y) == wanted for y in range(0, image.height(), 2) for x in range(0, image.width(), 2))


def test_a_hit_in_a_version_not_shown_opens_that_version(qtbot, window):
    # An edit moved the conversation past the message: the result still opens it, in its version.
    store = window.services.conversations
    conv = store.create("Versions")
    first = store.append(conv.id, ChatMessage(role="user", content="plan the zanzibar trip"))
    root = store.node_of(first)
    old = store.append(conv.id, ChatMessage(role="assistant", content="the zanzibar itinerary"))
    store.append(conv.id, ChatMessage(role="assistant", content="a newer answer"), parent=root)
    assert [m.message.content for m in store.messages(conv.id)][-1] == "a newer answer"
    window.conversations.reload(window.session.conversation.id)
    _search(qtbot, window, "itinerary")
    QTest.keyClick(window.conversations.search, Qt.Key.Key_Return)
    assert window.session.conversation.id == conv.id
    assert row_of_message(window.transcript, old) == 1
    assert [m.message.content for m in store.messages(conv.id)][-1] == "the zanzibar itinerary"  # remembered


def test_search_in_english_shows_snippets_and_enter_opens_the_conversation_at_the_message(qtbot, window):
    filler = [f"message number {n} about nothing in particular\n\nwith a second paragraph" for n in range(80)]
    texts = [*filler[:10], "The quarterly report is in reports/q3.md", *filler[10:]]
    conv_id, ids = _conversation(window, "Planning", texts)
    _conversation(window, "Other", ["lunch at noon?"])
    _search(qtbot, window, "quarterly REPORT")
    results = window.conversations.results
    assert results.isVisible() and not window.conversations.view.isVisible()
    hits = results.hits()
    assert [(h.conversation_id, h.message_id) for h in hits] == [(conv_id, ids[10])]
    assert hits[0].snippet.matches == ("quarterly", "report", "report")  # "reports/q3.md" too

    QTest.keyClick(window.conversations.search, Qt.Key.Key_Return)
    assert window.session.conversation.id == conv_id
    row = row_of_message(window.transcript, ids[10])
    assert row == 10
    qtbot.waitUntil(lambda: _row_in_view(window, row))
    assert not _row_in_view(window, len(texts) - 1)  # not left at the bottom
    assert window.find_bar.isVisible() and window.find_bar.field.text() == "quarterly"
    assert window.find_bar.finder.matches[window.find_bar.finder.index].row == row
    # Escape in the box clears the search and brings the list back.
    QTest.keyClick(window, Qt.Key.Key_F, CTRL | SHIFT)
    QTest.keyClick(window.conversations.search, Qt.Key.Key_Escape)
    assert window.conversations.search.text() == "" and window.conversations.view.isVisible()


def test_search_in_chinese_finds_a_two_character_word_and_the_results_are_keyboard_reachable(qtbot, window):
    conv_id, ids = _conversation(window, "出行", ["明天去哪里？", "今天天气很好，适合去公园。", "好的"])
    _search(qtbot, window, "天气")
    hits = window.conversations.results.hits()
    assert [(h.conversation_id, h.message_id, h.snippet.matches) for h in hits] == [(conv_id, ids[1], ("天气",))]
    QTest.keyClick(window.conversations.search, Qt.Key.Key_Down)
    assert window.conversations.results.hasFocus()
    QTest.keyClick(window.conversations.results, Qt.Key.Key_Return)
    assert window.session.conversation.id == conv_id
    assert window.transcript.currentIndex().row() == row_of_message(window.transcript, ids[1]) == 1
    assert window.find_bar.count.text() == "1 of 1"


def test_search_with_no_match_says_so(qtbot, window):
    _conversation(window, "A", ["hello"])
    _search(qtbot, window, "zebra")
    assert window.conversations.results.hits() == []
    QTest.keyClick(window.conversations.search, Qt.Key.Key_Return)  # nothing to open: nothing happens
    assert window.conversations.search.hasFocus()


def test_ctrl_f_finds_counts_steps_highlights_and_escape_closes(qtbot, window):
    conv_id, _ = _conversation(window, "Fruit", ["an apple a day", "no fruit here", "Apple pie and apple juice"])
    window.conversations.view.setCurrentIndex(window.conversations.index_of(conv_id))
    assert window.session.conversation.id == conv_id
    QTest.keyClick(window, Qt.Key.Key_F, CTRL)
    bar = window.find_bar
    assert bar.isVisible() and bar.field.hasFocus()
    QTest.keyClicks(bar.field, "apple")
    qtbot.waitUntil(lambda: bar.count.text() == "1 of 3")
    assert [m.row for m in bar.finder.matches] == [0, 2, 2]
    QTest.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "2 of 3"
    QTest.keyClick(bar.field, Qt.Key.Key_Return, SHIFT)
    assert bar.count.text() == "1 of 3"
    QTest.keyClick(window, Qt.Key.Key_F3)
    QTest.keyClick(window, Qt.Key.Key_F3)
    assert bar.count.text() == "3 of 3"
    QTest.keyClick(window, Qt.Key.Key_F3)  # wraps
    assert bar.count.text() == "1 of 3"
    window.transcript.viewport().repaint()
    assert _has_colour(window.transcript.viewport(), "#ffb77c")  # the current match
    assert _has_colour(window.transcript.viewport(), "#fff8c5")  # the others
    QTest.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible() and bar.finder.matches == []
    window.transcript.viewport().repaint()
    assert not _has_colour(window.transcript.viewport(), "#ffb77c")
    QTest.keyClick(window, Qt.Key.Key_F, CTRL)
    QTest.keyClick(bar.field, Qt.Key.Key_A, CTRL)
    QTest.keyClicks(bar.field, "pear")
    qtbot.waitUntil(lambda: bar.count.text() == "No matches")


def test_the_shortcuts_sheet_lists_every_action_in_english_and_chinese(qtbot, window):
    QTest.keyClick(window, Qt.Key.Key_Slash, CTRL)
    sheet = window.shortcuts_sheet
    assert sheet is not None and sheet.isVisible()
    rows = sheet.rows()
    for shortcut in ACTIONS.values():
        assert (key_text(shortcut.keys), shortcut.what) in rows
    assert ("Alt+A", "Allow once (when every line has been shown)") in rows
    # Settings' Alt-letter keys are no one key sequence: the sheet says them in words.
    assert ("Settings", "") in rows and ("Alt+underlined letter",
                                         "Use the button, box, tab or field whose letter is underlined") in rows
    i18n_qt.apply_language("zh_CN")
    try:
        rows = sheet.rows()
        assert ("设置", "") in rows and ("Alt+带下划线的字母", "使用字母带下划线的按钮、复选框、标签页或输入框") in rows
        assert (key_text(ACTIONS["new_conversation"].keys), "新对话") in rows
        assert all(tr(s.what) != s.what for s in ACTIONS.values())  # every one translated
        assert sheet.windowTitle() == "键盘快捷键"
    finally:
        i18n_qt.apply_language("en")
    QTest.keyClick(sheet, Qt.Key.Key_Escape)
    assert not sheet.isVisible()


def test_each_window_shortcut_does_its_job(qtbot, window):
    first = window.session.conversation.id
    QTest.keyClick(window, Qt.Key.Key_N, CTRL)
    second = window.session.conversation.id
    assert second != first and window.conversations.row_count() == 2
    QTest.keyClick(window, Qt.Key.Key_PageDown, CTRL)  # the list is newest first: down is older
    assert window.session.conversation.id == first
    QTest.keyClick(window, Qt.Key.Key_PageUp, CTRL)
    assert window.session.conversation.id == second
    window.composer.setFocus()
    QTest.keyClick(window.composer, Qt.Key.Key_Tab, CTRL)  # the message box does not keep it
    assert window.session.conversation.id == first
    QTest.keyClick(window, Qt.Key.Key_Backtab, CTRL | SHIFT)
    assert window.session.conversation.id == second
    QTest.keyClick(window, Qt.Key.Key_K, CTRL)
    assert window.conversations.search.hasFocus()
    QTest.keyClick(window, Qt.Key.Key_L, CTRL)
    assert window.composer.hasFocus()
    with qtbot.waitSignal(window.settings_requested, timeout=2000):
        QTest.keyClick(window, Qt.Key.Key_Comma, CTRL)
    QTest.keyClick(window, Qt.Key.Key_F2)  # in the message box F2 is not rename
    assert window.conversations.view.state() != QListView.State.EditingState
    window.conversations.view.setFocus()
    QTest.keyClick(window.conversations.view, Qt.Key.Key_F2)
    assert window.conversations.view.state() == QListView.State.EditingState
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    QTest.keyClick(window, Qt.Key.Key_M, CTRL | SHIFT)
    assert window.model_picker.view().isVisible()  # its list is open, the focus in it
    window.model_picker.hidePopup()
    assert window.model_picker.hasFocus()
    for key, modifiers in ((Qt.Key.Key_O, CTRL), (Qt.Key.Key_E, CTRL | SHIFT)):
        QTest.keyClick(window, key, modifiers)
        dialogs = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
        assert len(dialogs) == 1
        dialogs[0].reject()
        qtbot.waitUntil(lambda: not any(d.isVisible() for d in window.findChildren(QFileDialog)))
    # Delete in the list asks first, Cancel being the default: Enter keeps the conversation.
    window.conversations.view.setFocus()
    QTest.keyClick(window.conversations.view, Qt.Key.Key_Delete)
    box = next(b for b in window.conversations.findChildren(QMessageBox) if b.isVisible())
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.reject()
    assert window.conversations.row_count() == 2


def test_ctrl_shift_x_stops_a_running_turn(qtbot, qloop, window, workspace):
    window.set_workspace(str(workspace))
    window.set_model(ScriptedModel([], delay=0.01, endless=True))

    async def scenario():
        streaming = next_emission(window.session.transcript.rowsInserted)
        window.composer.setPlainText("talk forever")
        QTest.keyClick(window.composer, Qt.Key.Key_Return, CTRL)
        assert window.session.busy
        await within(streaming)
        done = next_emission(window.session.busy_changed)
        QTest.keyClick(window, Qt.Key.Key_X, CTRL | SHIFT)
        return await within(done)

    assert qloop.run_until_complete(scenario()) is False
    assert "Stopped" in window.session.transcript.items()[-1].text


def test_every_control_of_the_window_has_a_shortcut_or_is_reached_with_tab(window):
    bound = [*window.actions(), *window.conversations.actions()]
    assert {a.objectName() for a in bound} >= set(ACTIONS)
    for action in bound:
        assert action.shortcuts(), f"{action.objectName()} has no keys"
    # Walk the Tab chain from the message box round the whole window.
    reached: set[QWidget] = set()
    widget: QWidget = window.composer
    for _step in range(500):
        widget = widget.nextInFocusChain()
        if widget.focusPolicy() & Qt.FocusPolicy.TabFocus and widget.isVisibleTo(window):
            reached.add(widget)
        if widget is window.composer:
            break
    controls = [w for w in window.findChildren(QWidget)
                if isinstance(w, (QAbstractButton, QComboBox)) and w.isVisibleTo(window)]
    assert controls
    by_shortcut = {window.stop_button}  # disabled until a turn runs; Ctrl+Shift+X stops
    missing = [w.accessibleName() or w.objectName() or type(w).__name__ for w in controls
               if w not in reached and w not in by_shortcut]
    assert missing == []
    for main_part in (window.composer, window.transcript, window.conversations.search,
                      window.conversations.view, window.model_picker):
        assert main_part in reached


def _approval_call(text: str) -> ToolCall:
    return ToolCall(id="call-k", name="write_note", arguments=json.dumps({"path": "notes.txt", "text": text}))


@pytest.mark.parametrize(("keys", "expected"), [
    ((Qt.Key.Key_A, ALT), "allow_once"),
    ((Qt.Key.Key_D, ALT), "deny"),
    ((Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier), "deny"),
])
def test_approval_dialog_keys(qloop, runtime, scope, workspace, keys, expected):
    from echo_desk.ui.approval.host import QtHost

    (workspace / "notes.txt").write_text("old\n")

    async def run():
        import asyncio

        host = QtHost()
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(runtime.dispatcher.execute_tool(_approval_call("new\n"), scope, host))
        dialog: ApprovalDialog = await within(opened)
        dialog.activateWindow()
        QTest.keyClick(dialog, *keys)
        await within(task)
        return dialog.decision

    decision = qloop.run_until_complete(run())
    assert decision is not None and decision.choice.value == expected
    assert (workspace / "notes.txt").read_text() == ("new\n" if expected == "allow_once" else "old\n")


def test_alt_a_does_nothing_while_allow_is_disabled(qtbot, qloop, runtime, scope, workspace):
    from echo_desk.ui.approval.host import QtHost

    async def run():
        import asyncio

        host = QtHost()
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(runtime.dispatcher.execute_tool(_approval_call("x\n"), scope, host))
        dialog: ApprovalDialog = await within(opened)
        dialog.activateWindow()
        dialog.allow_once.setEnabled(False)  # as before every line has been in view
        QTest.keyClick(dialog, Qt.Key.Key_A, ALT)
        undecided = dialog.decision is None
        QTest.keyClick(dialog, Qt.Key.Key_Escape)
        await within(task)
        return undecided, dialog.decision

    undecided, decision = qloop.run_until_complete(run())
    assert undecided and decision.choice.value == "deny"
    assert not (workspace / "notes.txt").exists()
