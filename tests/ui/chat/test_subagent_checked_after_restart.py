"""A sub-agent's command whose sandbox still ran when Echo Desk closed: at the next start its owed
check is made, and the ``delegate`` card's nested step says what was found and that it was found
at that start, with the header's "plants blocked" mark, both in the chat open on it and in the
conversation reopened from its file, in English and Chinese. Before, the nested step kept saying
that processes still ran and no mark came."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from PySide6.QtWidgets import QWidget

from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.app.checked_after_restart_notice import CheckedAfterRestartNotice
from echo_desk.ui.chat.chat_window import MainWindow
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of
from tests.ui.chat.test_checked_later_reopened import LateCheckedCommand
from tests.ui.chat.test_delegate_planted_mark import _header
from tests.ui.chat.test_subagent_checked_later import STILL_RAN, _card, _text, command, runtime, window
from tests.ui.chat.test_subagents_ui import GOAL, Children
from tests.ui.conftest import attached_window, next_emission, within

__all__ = ["command", "runtime", "window"]  # (the fixtures, shared with the nested card's tests)

CHECKED_AT_START = {"en": "checked at the next start, and what is said above was found",
                    "zh_CN": "下次启动时已补做检查，发现了上面所列的内容"}
MARK = {"en": "⚠ 1 plant blocked", "zh_CN": "⚠ 已拦截 1 处植入"}
HOOK = {"en": "pre-commit (new: put aside)", "zh_CN": "pre-commit（新建：已移走）"}


def _said(window: MainWindow, language: str) -> bool:
    text = _text(window, language)
    return (CHECKED_AT_START[language] in text and HOOK[language] in text and STILL_RAN[language] not in text
            and MARK[language] in _header(window, language))


def test_the_check_made_at_the_next_start_reaches_the_delegate_cards_nested_step(  # type: ignore[no-untyped-def]
        window: MainWindow, qloop, qtbot, runtime: Runtime, tmp_path: Path, command: LateCheckedCommand) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    runtime.enable_delegation(Children([calls(("k1", "late_checked", "{}")), say("It ran.")]))
    window.set_workspace(str(project))
    args = json.dumps({"goal": GOAL, "tools": ["late_checked"]})
    window.set_model(ScriptedModel([calls(("d1", "delegate", args)), say("Done.")]))
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario() -> None:
        window.composer.setPlainText("Run it in a sub-agent")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    window.session.flush_writes()  # saved with the first account; the late check never ends (a quit)
    conversation = window.session.conversation
    assert conversation is not None
    assert STILL_RAN["en"] in _text(window) and "⚠" not in _header(window)

    # What the quit left owed: the sub-agent's call k1, in the parent's conversation.
    assert runtime.owed_checks is not None
    runtime.owed_checks.owe(conversation_id=str(conversation.id), call_id="k1", tool="run_command",
                            workspace=str(project), snapshot=snapshot_of(project, home, tmp_path / "put-aside"))
    owed_by_a_gone_process(runtime.owed_checks)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")

    store = ConversationStore(tmp_path / "conversations.sqlite3")
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        notice = CheckedAfterRestartNotice(runtime, store, parent, on_card=lambda c: window.session.show_updated_card(
            c.conversation_id, c.call_id, c.envelope))
        notice.check()
        qtbot.waitUntil(lambda: notice.done, timeout=10000)
        assert not hook.exists()
        # The chat open on it shows it at once ...
        qtbot.waitUntil(lambda: _said(window, "en"), timeout=5000)
        assert _said(window, "zh_CN") and not _card(window).expanded
        if notice.box is not None:
            notice.box.close()
        # ... and the conversation reopened from its file (a new window, a new store) says it too.
        again = attached_window(qtbot, runtime, store)
        again.conversations.reload(str(conversation.id))
        for language in ("en", "zh_CN"):
            assert _said(again, language), (language, _text(again, language))
    finally:
        command.check.cancel()
        store.close()
