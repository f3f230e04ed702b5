"""The ``delegate`` card's header carries the "⚠ plants blocked" mark of a ``run_command`` card,
counting what all its sub-agent's calls planted: in view with the card folded (its nested steps,
which say it too, are then out of sight), brought up to date when a later check ends after the
sub-agent returned, and kept in the reopened conversation, in English and Chinese. Before, only
the nested steps said it."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from PySide6.QtCore import QPoint

from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.tools.planted import Change, CheckedLater, Planted
from echo_desk.tools.sandbox_kept import MAX_ENTRIES
from echo_desk.ui.chat.card_facts import ResultFacts, SandboxFacts, SubCall, SubResult, SubTranscript
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.sandbox_card import PLANTED_ANCHOR
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView
from echo_desk.ui.core import i18n_qt
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.ui.chat.test_checked_later_reopened import LateCheckedCommand
from tests.ui.chat.test_subagent_checked_later import _card, _text, command, runtime, window
from tests.ui.chat.test_subagents_ui import GOAL, Children
from tests.ui.conftest import attached_window, next_emission, within

__all__ = ["command", "runtime", "window"]  # (the fixtures, shared with the nested card's test)

MARK = {"en": "⚠ {n} plants blocked", "zh_CN": "⚠ 已拦截 {n} 处植入"}
MANY = MAX_ENTRIES + 30


def _header(window: MainWindow, language: str = "en") -> str:
    """The folded card's first line, as the view draws it."""
    return _text(window, language).splitlines()[0]


def _run(window: MainWindow, qloop, runtime: Runtime, workspace: Path, child_calls: int) -> None:  # type: ignore[no-untyped-def]
    steps = [calls(*((f"k{n}", "late_checked", "{}") for n in range(child_calls))), say("It ran.")]
    runtime.enable_delegation(Children(steps))
    window.set_workspace(str(workspace))
    args = json.dumps({"goal": GOAL, "tools": ["late_checked"]})
    window.set_model(ScriptedModel([calls(("d1", "delegate", args)), say("Done.")]))
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario() -> None:
        window.composer.setPlainText("Run it in a sub-agent")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    window.session.flush_writes()


def test_the_folded_delegate_card_says_in_its_header_what_its_sub_agent_planted(  # type: ignore[no-untyped-def]
        window: MainWindow, qloop, qtbot, runtime: Runtime, workspace: Path, tmp_path: Path,
        command: LateCheckedCommand) -> None:
    _run(window, qloop, runtime, workspace, child_calls=1)
    assert not _card(window).expanded and "⚠" not in _header(window)
    # The check ends after the sub-agent returned (on the sandbox's thread) and finds more than
    # the stored cap: the header counts them all.
    aside = workspace.parent / "aside"
    found = CheckedLater(tuple(Planted(f"p{i}/.envrc", Change.CREATED, kept=str(aside / f"p{i}"))
                               for i in range(MANY)), str(workspace))
    threading.Thread(target=command.check.set_result, args=(found,)).start()
    qtbot.waitUntil(lambda: "⚠" in _header(window), timeout=5000)
    for language in ("en", "zh_CN"):
        assert MARK[language].format(n=MANY) in _header(window, language), language
    assert not _card(window).expanded

    # The reopened conversation keeps the mark and its count (the stored steps are capped).
    window.session.flush_writes()
    conversation = window.session.conversation
    assert conversation is not None
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        again = attached_window(qtbot, runtime, store)
        again.conversations.reload(str(conversation.id))
        for language in ("en", "zh_CN"):
            assert MARK[language].format(n=MANY) in _header(again, language), language
        [facts] = _card(again).subtranscript.sandboxes
        assert len(facts.planted) == MAX_ENTRIES and facts.planted_more == MANY - MAX_ENTRIES
    finally:
        store.close()


def test_the_mark_counts_the_plants_of_every_call(  # type: ignore[no-untyped-def]
        window: MainWindow, qloop, qtbot, runtime: Runtime, workspace: Path, command: LateCheckedCommand) -> None:
    """Two calls of the sub-agent share one check here: each entry is counted once per call."""
    _run(window, qloop, runtime, workspace, child_calls=2)
    found = CheckedLater((Planted(".envrc", Change.CREATED, kept=str(workspace.parent / "aside" / ".envrc")),),
                         str(workspace))
    threading.Thread(target=command.check.set_result, args=(found,)).start()
    qtbot.waitUntil(lambda: "⚠" in _header(window), timeout=5000)
    for language in ("en", "zh_CN"):
        assert MARK[language].format(n=2) in _header(window, language), language


def test_hovering_the_delegate_cards_mark_names_what_its_sub_agents_calls_planted(qtbot) -> None:  # type: ignore[no-untyped-def]
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(760, 400)
    qtbot.addWidget(view)
    view.show()
    item = model.add_tool_call("d1", "delegate", json.dumps({"goal": GOAL, "tools": ["run_command"]}))
    facts = SandboxFacts(sandboxed=True, planted=(Planted("a/.envrc", Change.CREATED, kept="/aside/a/.envrc"),),
                         planted_more=4)
    step = SubCall(call_id="k1", tool="run_command", result=SubResult(ok=True, sandbox=facts))
    item.show_result(ResultFacts(ok=True, content="done", subtranscript=SubTranscript((step,))))
    view.doItemsLayout()
    index = model.index(0, 0)
    rect = view.visualRect(index)
    said = {"en": ("calls tried to plant what would run code later", "4 more"),  # (the tooltip escapes "'")
            "zh_CN": ("子智能体的调用试图放置", "另有 4 项")}
    for language, (heading, more) in said.items():
        i18n_qt.apply_language(language)
        try:
            view.viewport().setToolTip("")
            spot = next((QPoint(x, y) for y in range(rect.top(), rect.top() + 60, 3)
                         for x in range(rect.left(), rect.right(), 3)
                         if view.anchor_at(index, QPoint(x, y)) == PLANTED_ANCHOR), None)
            assert spot is not None, "the mark is not in the delegate card's header"
            qtbot.mouseMove(view.viewport(), spot + QPoint(1, 0))
            qtbot.mouseMove(view.viewport(), spot)
            qtbot.waitUntil(lambda heading=heading: heading in view.viewport().toolTip(), timeout=3000)
            assert "a/.envrc" in view.viewport().toolTip() and more in view.viewport().toolTip()
        finally:
            i18n_qt.apply_language("en")
