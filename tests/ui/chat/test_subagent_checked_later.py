"""A sub-agent's command whose sandbox still ran as its result went: the nested card in the
parent's ``delegate`` card first says the check is to come, and once the sandbox ends (after the
sub-agent has returned, on another thread) it tells what the check put aside, live and in the
conversation reopened from its file, in English and Chinese. Before, the parent's card kept the
first account ('processes still ran') for good, and the stored message with it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.planted import Change, CheckedLater, Planted
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.transcript import TOOL, TranscriptItem
from echo_desk.ui.chat.transcript_view import TranscriptDelegate
from echo_desk.ui.core import i18n_qt
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.ui.chat.test_checked_later_reopened import LateCheckedCommand
from tests.ui.chat.test_subagents_ui import GOAL, Children
from tests.ui.conftest import attached_window, next_emission, within

STILL_RAN = {"en": "still ran in the sandbox", "zh_CN": "沙箱中仍有它的进程在运行"}
PUT_ASIDE = {"en": ".envrc (new: put aside)", "zh_CN": ".envrc（新建：已移走）"}


@pytest.fixture
def command() -> LateCheckedCommand:
    return LateCheckedCommand()


@pytest.fixture
def runtime(settings_store: SettingsStore, tmp_path: Path, command: LateCheckedCommand) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=settings_store, data_dir=tmp_path, with_builtins=False,
                        with_plugins=False, extra_tools=[command])
    yield rt
    rt.close()


@pytest.fixture
def window(qtbot, qloop, runtime: Runtime, tmp_path: Path) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    win.resize(900, 700)
    win.show()
    yield win
    win.session.stop()
    store.close()


def _card(window: MainWindow) -> TranscriptItem:
    return next(i for i in window.session.transcript.items() if i.kind == TOOL and i.tool_name == "delegate")


def _text(window: MainWindow, language: str = "en") -> str:
    """The delegate card as the view draws it (its nested steps), in ``language``."""
    i18n_qt.apply_language(language)
    try:
        drawn = window.transcript.itemDelegate()
        assert isinstance(drawn, TranscriptDelegate)
        return drawn.document(_card(window)).toPlainText()
    finally:
        i18n_qt.apply_language("en")


def test_the_nested_card_tells_the_check_that_ended_after_the_sub_agent_returned(  # type: ignore[no-untyped-def]
        window: MainWindow, qloop, qtbot, runtime: Runtime, workspace: Path, tmp_path: Path,
        command: LateCheckedCommand) -> None:
    runtime.enable_delegation(Children([calls(("k1", "late_checked", "{}")), say("It ran.")]))
    window.set_workspace(str(workspace))
    parent = ScriptedModel([calls(("d1", "delegate", json.dumps({"goal": GOAL, "tools": ["late_checked"]}))),
                            say("Done.")])
    window.set_model(parent)
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario() -> None:
        window.composer.setPlainText("Run it in a sub-agent")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    window.session.flush_writes()  # the delegate's message is saved with the first account
    assert STILL_RAN["en"] in _text(window) and ".envrc" not in _text(window)
    found = CheckedLater((Planted(".envrc", Change.CREATED, kept=str(workspace.parent / "aside" / ".envrc")),),
                         str(workspace))
    threading.Thread(target=command.check.set_result, args=(found,)).start()  # the sandbox ends
    qtbot.waitUntil(lambda: PUT_ASIDE["en"] in _text(window), timeout=5000)
    for language in ("en", "zh_CN"):
        live = _text(window, language)
        assert PUT_ASIDE[language] in live and STILL_RAN[language] not in live, (language, live)

    # Reopened in a new window over a new store on the same file: the stored message was updated.
    window.session.flush_writes()
    conversation = window.session.conversation
    assert conversation is not None
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        again = attached_window(qtbot, runtime, store)
        again.conversations.reload(str(conversation.id))
        for language in ("en", "zh_CN"):
            reopened = _text(again, language)
            assert PUT_ASIDE[language] in reopened and STILL_RAN[language] not in reopened, (language, reopened)
    finally:
        store.close()
