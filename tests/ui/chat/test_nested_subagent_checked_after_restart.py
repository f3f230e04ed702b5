"""A sub-agent started by a sub-agent: its steps are shown nested in the step that started it, in
the conversation's ``delegate`` card, live and reopened. Its command whose sandbox still ran when
Echo Desk closed is checked at the next start, and that nested step says what was found and that
it was found then, with the header's "plants blocked" mark, in English and Chinese. Before, the
inner sub-agent's steps were kept nowhere, so nothing showed its command or its check."""

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
from tests.ui.chat.test_subagent_checked_after_restart import _said
from tests.ui.chat.test_subagent_checked_later import STILL_RAN, _text, command, runtime, window
from tests.ui.chat.test_subagents_ui import GOAL, Children
from tests.ui.conftest import attached_window, next_emission, within

__all__ = ["command", "runtime", "window"]

INNER = "the inner sub-agent's answer"


def test_a_sub_agents_sub_agent_is_shown_nested_and_its_check_made_at_the_next_start_reaches_it(  # type: ignore[no-untyped-def]
        window: MainWindow, qloop, qtbot, runtime: Runtime, tmp_path: Path, command: LateCheckedCommand) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    inner = json.dumps({"goal": GOAL, "tools": ["late_checked"]})
    runtime.enable_delegation(Children([calls(("e1", "delegate", inner)), say("Passed on.")],
                                       [calls(("k1", "late_checked", "{}")), say(INNER)]))
    window.set_workspace(str(project))
    outer = json.dumps({"goal": GOAL, "tools": ["delegate", "late_checked"]})
    window.set_model(ScriptedModel([calls(("d1", "delegate", outer)), say("Done.")]))
    window.host.dialog_opened.connect(lambda dialog: asyncio.get_running_loop().call_soon(dialog.allow_once.click))

    async def scenario() -> None:
        window.composer.setPlainText("Run it in a sub-agent's sub-agent")
        window.send()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    window.session.flush_writes()  # saved with the first account; the late check never ends (a quit)
    conversation = window.session.conversation
    assert conversation is not None
    live = _text(window)
    assert INNER in live and "Passed on." in live and STILL_RAN["en"] in live and "⚠" not in _header(window)

    # What the quit left owed: k1, held by the inner sub-agent's delegate call e1 within d1.
    assert runtime.owed_checks is not None
    runtime.owed_checks.owe(conversation_id=str(conversation.id), call_id="k1", tool="run_command",
                            workspace=str(project), snapshot=snapshot_of(project, home, tmp_path / "put-aside"),
                            held_by=("d1", "e1"))
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
        qtbot.waitUntil(lambda: _said(window, "en"), timeout=5000)
        assert _said(window, "zh_CN")
        if notice.box is not None:
            notice.box.close()
        again = attached_window(qtbot, runtime, store)
        again.conversations.reload(str(conversation.id))
        for language in ("en", "zh_CN"):
            assert _said(again, language) and INNER in _text(again, language), (language, _text(again, language))
    finally:
        command.check.cancel()
        store.close()
