"""The empty chat offers three example prompts; a click sends one."""

from __future__ import annotations

import pytest

from echo_desk.ui.chat.example_prompts import EXAMPLES
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import until
from tests.ui.fake_model import ScriptedModel, say


def test_an_empty_chat_offers_three_examples_and_a_click_sends_one(window, qloop) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([say("A list holds items in order.")])
    window.set_model(model)
    examples = window.examples
    assert examples.isVisibleTo(window)
    assert [b.text() for b in examples.buttons] == list(EXAMPLES)
    examples.buttons[2].click()
    qloop.run_until_complete(until(lambda: bool(model.seen_messages) and not window.session.busy))
    assert model.seen_messages[0][-1].content == EXAMPLES[2]
    assert not examples.isVisibleTo(window)  # the conversation has begun
    window.new_conversation()
    assert examples.isVisibleTo(window)  # a new, empty one offers them again


def test_the_examples_are_shown_and_sent_in_chinese(window, qloop) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([say("好的")])
    window.set_model(model)
    i18n_qt.apply_language("zh_CN")
    try:
        texts = [b.text() for b in window.examples.buttons]
        assert all(t and t not in EXAMPLES for t in texts)
        window.examples.buttons[0].click()
        qloop.run_until_complete(until(lambda: bool(model.seen_messages) and not window.session.busy))
        assert model.seen_messages[0][-1].content == texts[0]
    finally:
        i18n_qt.apply_language("en")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_examples_do_not_make_the_window_wider_than_a_small_screen(window, language) -> None:  # type: ignore[no-untyped-def]
    # Side by side, the three sentences once made the window at least 1,190 px wide.
    i18n_qt.apply_language(language)
    try:
        assert window.examples.isVisibleTo(window)
        assert window.minimumSizeHint().width() <= 1000
    finally:
        i18n_qt.apply_language("en")
