"""A cut answer (the model repeated itself, or hit the token cap) ends in a Retry card."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from echo_desk.agent.model import StreamEnd, TextDelta, ToolCallDelta, ToolCallStarted
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import next_emission, until, within
from tests.ui.fake_model import ScriptedModel, say

REPEATING = [TextDelta("Buy bread\n") for _ in range(12)] + [StreamEnd()]
CUT_CALL = [ToolCallStarted(id="c1", name="write_note"), ToolCallDelta(id="c1", text='{"path": "notes.txt", "te'),
            StreamEnd("length")]


async def _turn(window: MainWindow, text: str) -> None:
    idle = next_emission(window.session.busy_changed)
    window.composer.setPlainText(text)
    window.send()
    await within(idle)
    await until(lambda: not window.session.busy)


def test_a_repeating_answer_offers_retry_and_enter_retries_with_a_note(window, qloop, workspace) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([REPEATING, say("notes.txt has two lines.")])
    window.set_model(model)
    card = window.retry_card

    async def scenario() -> None:
        await _turn(window, "What is in notes.txt?")
        await until(lambda: card.isVisibleTo(window))
        assert "repeated itself" in card.title.text()
        assert "“Buy bread” 8 times" in card.detail.text() and "was run" in card.detail.text()
        # No English engine error row: the card says it.
        assert all(i.kind != "error" for i in window.session.transcript.items())
        assert card.retry_button.hasFocus() or card.focusWidget() is card.retry_button
        started = next_emission(window.session.busy_changed)
        QTest.keyClick(card.retry_button, Qt.Key.Key_Return)
        assert await within(started) is True
        await until(lambda: not window.session.busy)

    qloop.run_until_complete(scenario())
    assert not card.isVisibleTo(window)
    assert len(model.seen_messages) == 2
    note = model.seen_messages[1][-1]
    assert note.role == "user" and "repeated 'Buy bread' 8 times" in note.content
    texts = [i.text.strip() for i in window.session.transcript.items()]
    assert "notes.txt has two lines." in texts
    # Saved: the note is part of the conversation the model sees next time too.
    assert window.session.history[-2].content == note.content
    # Opened again, the note is still not shown as the person's words.
    conversation = window.session.conversation
    window.session.flush_writes()
    window.session.open(None)
    window.session.open(conversation)
    reopened = window.session.transcript.items()
    assert [i.text for i in reopened if i.kind == "user"] == ["What is in notes.txt?"]
    assert "notes.txt has two lines." in [i.text.strip() for i in reopened]
    assert note.content in [m.content for m in window.session.history]


def test_a_call_cut_at_the_token_cap_is_not_run_and_one_click_retries(window, qloop, workspace) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([CUT_CALL, say("Done.")])
    window.set_model(model)
    card = window.retry_card

    async def scenario() -> None:
        await _turn(window, "Write notes.txt")
        await until(lambda: card.isVisibleTo(window))
        assert card.title.text() == "The answer was cut off"
        assert "The unfinished call was not run." in card.detail.text()
        card.retry_button.click()
        await until(lambda: len(model.seen_messages) == 2 and not window.session.busy)

    qloop.run_until_complete(scenario())
    assert not (workspace / "notes.txt").exists()  # the cut-off call never ran
    assert "length limit" in model.seen_messages[1][-1].content


def test_the_card_speaks_chinese(window, qloop) -> None:  # type: ignore[no-untyped-def]
    window.set_model(ScriptedModel([REPEATING]))
    i18n_qt.apply_language("zh_CN")
    try:
        qloop.run_until_complete(_turn(window, "记录"))
        assert window.retry_card.isVisibleTo(window)
        assert window.retry_card.retry_button.text() == "重试"
        assert "Buy bread" in window.retry_card.detail.text() and "8" in window.retry_card.detail.text()
        assert "repeated" not in window.retry_card.detail.text()
    finally:
        i18n_qt.apply_language("en")


def test_dismiss_hides_the_card_and_sends_nothing(window, qloop) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([REPEATING])
    window.set_model(model)
    qloop.run_until_complete(_turn(window, "x"))
    window.retry_card.dismiss_button.click()
    assert not window.retry_card.isVisibleTo(window)
    assert len(model.seen_messages) == 1 and not window.session.busy
