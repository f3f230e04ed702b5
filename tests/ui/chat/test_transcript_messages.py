"""Transcript rows of stored messages: the id, footer and version switcher land on the same row
live (as a turn streams) and when the conversation is loaded again; the bar is painted."""

from __future__ import annotations

import pytest

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.store.answer_stats import AnswerStats
from echo_desk.store.conversations import StoredMessage
from echo_desk.store.message_tree import BranchPosition
from echo_desk.ui.chat.message_bar import MessageAction, actions_for, bar_html, footer_text
from echo_desk.ui.chat.transcript import ASSISTANT, TOOL, USER, TranscriptModel
from echo_desk.ui.chat.transcript_view import _MARGIN, _PAD, TranscriptView
from echo_desk.ui.core import i18n_qt

STATS = AnswerStats(input_tokens=900, output_tokens=30, elapsed_seconds=2.5, first_token_seconds=0.5)
TWO = BranchPosition(2, 2, ("old", "a1"))


@pytest.fixture
def view(qtbot):
    v = TranscriptView()
    v.setModel(TranscriptModel())
    v.resize(700, 500)
    qtbot.addWidget(v)
    v.show()
    return v


def _placed(model: TranscriptModel) -> list[tuple[str, str, bool, bool]]:
    return [(str(i.kind), i.node, i.stats is not None, i.branch is not None) for i in model.items()]


def test_text_then_calls_in_one_message_keep_the_footer_on_the_text_live_and_loaded(view):
    model: TranscriptModel = view.model()
    model.add_user("do it", node="u1")
    model.append_text("Let me look.")
    model.add_tool_call("c1", "read_file", "{}")  # a call ends the text row
    model.answer_saved("a1", STATS, ["c1"], TWO)
    live = _placed(model)
    assert live == [(USER, "u1", False, False), (ASSISTANT, "a1", True, True), (TOOL, "", False, False)]

    call = ToolCall(id="c1", name="read_file", arguments="{}")
    stored = [StoredMessage(1, ChatMessage(role="user", content="do it"), None, 0.0, "u1", None),
              StoredMessage(2, ChatMessage(role="assistant", content="Let me look.", tool_calls=(call,)), None, 0.0,
                            "a1", "u1", STATS)]
    model.load_history(stored, lambda node: TWO if node == "a1" else None)
    assert _placed(model) == live


def test_a_message_of_calls_only_carries_its_switcher_on_its_first_card(view):
    model: TranscriptModel = view.model()
    model.add_user("again", node="u1")
    model.add_tool_call("c1", "read_file", "{}")
    model.answer_saved("a1", STATS, ["c1"], TWO)
    card = model.items()[1]
    assert card.node == "a1" and card.branch == TWO
    assert actions_for(card) == [MessageAction.PREVIOUS_BRANCH]  # a card has no Copy/Edit of its own here
    assert "2/2" in bar_html(card)


def test_one_version_shows_no_switcher(view):
    model: TranscriptModel = view.model()
    model.add_user("hi", node="u1", branch=BranchPosition(1, 1, ("u1",)))
    assert model.items()[0].branch is None
    assert "1/1" not in bar_html(model.items()[0])


def test_the_footer_reads_in_both_languages_and_is_painted(view):
    model: TranscriptModel = view.model()
    model.add_user("hi", node="u1")
    model.append_text("Hello.")
    model.answer_saved("a1", STATS, [], None)
    assert footer_text(STATS) == "900 in · 30 out · 2.5 s · 15.0 tokens/s"
    i18n_qt.apply_language("zh_CN")
    try:
        assert footer_text(STATS) == "输入 900 个 token · 输出 30 个 token · 2.5 秒 · 每秒 15.0 个 token"
    finally:
        i18n_qt.apply_language("en")
    model.flush()
    view.doItemsLayout()
    assert not view.grab().isNull()
    # The bar adds one line under each message: the row is taller than its text alone.
    delegate = view.itemDelegate()
    text_height = sum(d.size().height() for d in delegate.documents(model.items()[1]))
    bar_height = delegate.bars.height(model.items()[1], view.font())
    assert bar_height > 10
    without_bar = text_height + 2 * (_MARGIN + _PAD) - _MARGIN
    assert abs(view.visualRect(model.index(1)).height() - (without_bar + bar_height)) <= 1
