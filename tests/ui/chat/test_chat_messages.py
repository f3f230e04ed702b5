"""Message actions in the chat window, with a real engine, a real store and a scripted model:
copy a message, edit a sent one into a new branch and switch back, regenerate the last answer,
and the tokens-and-time footer, all kept across a restart (a new store over the same file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu

from echo_desk.agent.model import StreamEvent, Usage
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.chat.chat_session import ChatSession
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.message_bar import ANCHOR_PREFIX, BarDocuments, MessageAction, bar_html
from echo_desk.ui.chat.transcript import ASSISTANT, USER, TranscriptItem
from echo_desk.ui.chat.transcript_view import _PAD, TranscriptDelegate
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel, say


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "conversations.sqlite3"


@pytest.fixture
def window(qtbot, qloop, runtime, db, workspace):
    store = ConversationStore(db)
    win = attached_window(qtbot, runtime, store)
    win.set_workspace(str(workspace))
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.session.stop()
    store.close()


def _model(window: MainWindow, *answers: list[StreamEvent]) -> ScriptedModel:
    model = ScriptedModel(list(answers))
    window.set_model(model)
    return model


def _answer(text: str, tokens_in: int, tokens_out: int) -> list[StreamEvent]:
    events = say(text)
    return [*events[:-1], Usage(input_tokens=tokens_in, output_tokens=tokens_out), events[-1]]


def _wait_turn(window: MainWindow, qloop, start) -> None:
    async def scenario() -> bool:
        start()  # busy_changed(True) is emitted synchronously, so the next emission is the end
        assert window.session.busy
        return await within(next_emission(window.session.busy_changed))

    assert qloop.run_until_complete(scenario()) is False
    window.session.flush_writes()


def _send(window: MainWindow, qloop, text: str) -> None:
    window.composer.setPlainText(text)
    _wait_turn(window, qloop, window.send)


def _rows(window: MainWindow) -> list[tuple[str, str]]:
    return [(str(i.kind), i.text.strip()) for i in window.session.transcript.items()]


def _told(model: ScriptedModel) -> list[tuple[str, str]]:
    return [(m.role, m.content.strip()) for m in model.seen_messages[-1][1:]]


def _row_of(window: MainWindow, kind: str, text: str) -> TranscriptItem:
    return next(i for i in window.session.transcript.items() if i.kind == kind and i.text.strip() == text)


def _link_point(window: MainWindow, item: TranscriptItem, action: MessageAction) -> QPoint:
    """Where the link of ``action`` is painted in ``item``'s bar (viewport coordinates)."""
    view = window.transcript
    row = window.session.transcript.row_of(item)
    index = window.session.transcript.index(row)
    view.scrollTo(index)
    QApplication.processEvents()
    delegate = view.itemDelegate()
    assert isinstance(delegate, TranscriptDelegate)
    top = sum(d.size().height() for d in delegate.documents(item)) + BarDocuments.GAP
    bar = delegate.bars.document(item, view.font())
    assert bar is not None
    block = bar.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == ANCHOR_PREFIX + action.value:
                position = fragment.position() - block.position() + 1
                line = block.layout().lineForTextPosition(position)
                box = bar.documentLayout().blockBoundingRect(block)
                rect = delegate.row_rect(item, QRectF(view.visualRect(index)))  # the bubble or card
                x = rect.left() + _PAD + box.left() + line.cursorToX(position)[0]
                y = rect.top() + _PAD + top + box.top() + line.y() + line.height() / 2
                return QPoint(int(x), int(y))
            fragments += 1
        block = block.next()
    raise AssertionError(f"no {action} link on {item.kind} row {item.text!r}")


def _click(qtbot, window: MainWindow, item: TranscriptItem, action: MessageAction) -> None:
    qtbot.mouseClick(window.transcript.viewport(), Qt.MouseButton.LeftButton,
                     pos=_link_point(window, item, action))


def _restarted(qtbot, db: Path, window: MainWindow) -> tuple[ChatSession, ConversationStore]:
    """The same conversation opened from a new store over the same file, as after a restart."""
    store = ConversationStore(db)
    session = ChatSession(QtHost(lambda: None))
    session.store = store
    session.open(store.get(window.session.conversation.id))
    return session, store


def test_copy_puts_the_exact_message_on_the_clipboard_by_link_and_by_keyboard(qtbot, window, qloop):
    _model(window, say("Use `ls -la` | then **sort**"))
    _send(window, qloop, "  list <files> & sort them\n  please ")
    mine = _row_of(window, USER, "list <files> & sort them\n  please")
    answer = window.session.transcript.items()[1]
    QGuiApplication.clipboard().clear()

    _click(qtbot, window, mine, MessageAction.COPY)
    assert QGuiApplication.clipboard().text() == "list <files> & sort them\n  please"

    window.transcript.setCurrentIndex(window.session.transcript.index(1))
    window.transcript.setFocus()
    qtbot.keyClick(window.transcript, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == answer.text  # the Markdown source, as written
    assert "**sort**" in QGuiApplication.clipboard().text()


def test_the_context_menu_offers_the_same_actions(qtbot, window, qloop):
    _model(window, say("Hello."))
    _send(window, qloop, "hi")
    view = window.transcript
    for row, expected in ((0, ["Copy", "Edit…"]), (1, ["Copy", "Regenerate"])):
        index = window.session.transcript.index(row)
        view.scrollTo(index)
        view._menu(view.visualRect(index).center())
        menu = view.findChildren(QMenu)[-1]
        assert [a.text() for a in menu.actions() if a.text()][:2] == expected
        menu.close()
        menu.deleteLater()
        QApplication.processEvents()


def test_regenerate_is_offered_on_the_answer_to_the_last_message_or_on_that_message(qtbot, window, qloop):
    from echo_desk.agent.model import ModelError, ModelErrorKind

    class Failing(ScriptedModel):
        async def stream(self, messages, tools, *, tool_choice="auto"):  # type: ignore[no-untyped-def]
            raise ModelError("the server went away", kind=ModelErrorKind.CONNECTION)
            yield  # pragma: no cover - makes this an async generator

    _model(window, say("First answer."))
    _send(window, qloop, "one")
    assert _row_of(window, ASSISTANT, "First answer.").last_answer
    window.set_model(Failing([]))
    _send(window, qloop, "two")
    # The first answer is not the answer to "two": the unanswered message offers it instead.
    assert [item.text.strip() for item in window.session.transcript.items() if item.last_answer] == ["two"]
    model = _model(window, say("Second answer."))
    _wait_turn(window, qloop, lambda: _click(qtbot, window, _row_of(window, USER, "two"), MessageAction.REGENERATE))
    assert _rows(window) == [(USER, "one"), (ASSISTANT, "First answer."), (USER, "two"), (ASSISTANT, "Second answer.")]
    assert _told(model)[-1] == ("user", "two") and len(_told(model)) == 3


def test_the_editor_refuses_an_empty_message(qtbot, window, qloop):
    _model(window, say("Hello."))
    _send(window, qloop, "hi")
    window.message_actions.run(_row_of(window, USER, "hi"), MessageAction.EDIT)
    dialog = window.message_actions.dialog
    dialog.editor.setPlainText("   ")
    assert not dialog.send_button.isEnabled()
    dialog.editor.setPlainText("hello")
    assert dialog.send_button.isEnabled()
    dialog.reject()
    assert _rows(window) == [(USER, "hi"), (ASSISTANT, "Hello.")]  # cancelled: nothing changed


def test_an_edit_makes_a_branch_that_can_be_switched_back_and_survives_a_restart(qtbot, window, qloop, db):
    model = _model(window, say("A1."), say("A2."), say("A2 again."))
    _send(window, qloop, "first")
    _send(window, qloop, "second")
    second = _row_of(window, USER, "second")

    # F2 on the message opens the editor; Send resends it as a new version.
    window.transcript.setCurrentIndex(window.session.transcript.index(window.session.transcript.row_of(second)))
    window.transcript.setFocus()
    qtbot.keyClick(window.transcript, Qt.Key.Key_F2)
    dialog = window.message_actions.dialog
    assert dialog is not None and dialog.editor.toPlainText() == "second"
    dialog.editor.setPlainText("second, edited")
    _wait_turn(window, qloop, dialog.send_button.click)

    assert _rows(window) == [(USER, "first"), (ASSISTANT, "A1."), (USER, "second, edited"),
                             (ASSISTANT, "A2 again.")]
    assert _told(model) == [("user", "first"), ("assistant", "A1."), ("user", "second, edited")]
    edited = _row_of(window, USER, "second, edited")
    assert (edited.branch.index, edited.branch.count) == (2, 2)
    assert "2/2" in bar_html(edited)

    # ‹ shows the first version with its answer, from the store.
    _click(qtbot, window, edited, MessageAction.PREVIOUS_BRANCH)
    qtbot.waitUntil(lambda: _rows(window)[2:] == [(USER, "second"), (ASSISTANT, "A2.")], timeout=10_000)
    assert (_row_of(window, USER, "second").branch.index, _row_of(window, USER, "second").branch.count) == (1, 2)
    assert [m.content.strip() for m in window.session.history] == ["first", "A1.", "second", "A2."]

    # The next message continues the version shown, and the model is told exactly that.
    _model(window, say("A3."))
    _send(window, qloop, "third")
    told = _told(window.session.model)  # type: ignore[arg-type]
    assert told == [("user", "first"), ("assistant", "A1."), ("user", "second"), ("assistant", "A2."),
                    ("user", "third")]

    session, store = _restarted(qtbot, db, window)
    try:
        again = [(str(i.kind), i.text.strip(), i.branch.index if i.branch else 0) for i in session.transcript.items()]
        assert again == [(str(i.kind), i.text.strip(), i.branch.index if i.branch else 0)
                         for i in window.session.transcript.items()]
        assert again[2] == (USER, "second", 1)
    finally:
        store.close()


def test_regenerate_keeps_the_old_answer_as_a_version(qtbot, window, qloop, db):
    model = _model(window, say("Old answer."), say("New answer."), say("Third answer."))
    _send(window, qloop, "question")
    old = _row_of(window, ASSISTANT, "Old answer.")
    assert old.last_answer and not _row_of(window, USER, "question").last_answer

    _wait_turn(window, qloop, lambda: _click(qtbot, window, old, MessageAction.REGENERATE))
    assert _rows(window) == [(USER, "question"), (ASSISTANT, "New answer.")]
    assert _told(model) == [("user", "question")]  # the old answer is not in the request
    new = _row_of(window, ASSISTANT, "New answer.")
    assert (new.branch.index, new.branch.count) == (2, 2) and new.last_answer

    # The keyboard: Alt+Left and Alt+Right move between versions, Ctrl+R regenerates again.
    view = window.transcript
    view.setFocus()
    view.setCurrentIndex(window.session.transcript.index(1))
    qtbot.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: _rows(window) == [(USER, "question"), (ASSISTANT, "Old answer.")], timeout=10_000)
    assert view.currentIndex().row() == 1  # the switched message stays selected
    qtbot.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: _rows(window) == [(USER, "question"), (ASSISTANT, "New answer.")], timeout=10_000)
    view.setCurrentIndex(window.session.transcript.index(1))
    _wait_turn(window, qloop, lambda: qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier))
    third = _row_of(window, ASSISTANT, "Third answer.")
    assert (third.branch.index, third.branch.count) == (3, 3)
    assert _told(model) == [("user", "question")]

    _click(qtbot, window, third, MessageAction.PREVIOUS_BRANCH)
    qtbot.waitUntil(lambda: _rows(window) == [(USER, "question"), (ASSISTANT, "New answer.")], timeout=10_000)
    session, store = _restarted(qtbot, db, window)
    try:
        assert [i.text.strip() for i in session.transcript.items()] == ["question", "New answer."]
        assert (session.transcript.items()[1].branch.index, session.transcript.items()[1].branch.count) == (2, 3)
    finally:
        store.close()


def test_the_footer_shows_tokens_and_time_and_is_there_after_a_restart(qtbot, window, qloop, db):
    _model(window, _answer("Counted.", 321, 12))
    _send(window, qloop, "count")
    answer = _row_of(window, ASSISTANT, "Counted.")
    assert answer.stats is not None and (answer.stats.input_tokens, answer.stats.output_tokens) == (321, 12)
    assert "321 in · 12 out" in bar_html(answer) and "tokens/s" in bar_html(answer)

    session, store = _restarted(qtbot, db, window)
    try:
        loaded = session.transcript.items()[1]
        assert loaded.stats == answer.stats
        assert "321 in · 12 out" in bar_html(loaded)
    finally:
        store.close()


def test_a_message_the_full_disk_refuses_stays_on_screen_and_says_why(qtbot, window, qloop):
    """SQLite's own limit makes the store full for real (SQLITE_FULL, as a full disk): the answer
    stays in the transcript and the notice names the cause in the person's words."""
    _model(window, say("y" * 9000))
    _send(window, qloop, "first")  # the conversation exists; from here on, nothing fits
    store = window.session.core.store
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")
    _model(window, say("z" * 9000))
    _send(window, qloop, "x" * 9000)
    notices = [i.text for i in window.session.transcript.items() if "could not be saved" in i.text]
    assert notices and all(text.endswith("could not be saved: the disk is full") for text in notices), notices
    assert any(i.kind == ASSISTANT and i.text.startswith("zzz") for i in window.session.transcript.items())
