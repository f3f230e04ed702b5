"""A command whose sandbox still ran as its result went is checked when the sandbox ends; what
that check finds is kept with the conversation (real SQLite), so the card of a reopened
conversation, in a new window over the same file as at the next start, tells what the live card
told after the check: in English and in Chinese, whether the call was stopped or not, and whether
the check ended before or after its message was saved."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ErrorKind, RiskLevel, Tool, ToolExecutionContext, ToolResult
from echo_desk.tools.base import N_
from echo_desk.tools.planted import Change, CheckedLater, Planted
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript import TOOL, TranscriptItem
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel, call, say

STILL_RUNNING = {"sandbox": {"sandboxed": True, "mode": "sandboxed", "domains": [], "blocked": [], "planted": [],
                             "checked_later": True}}


class LateCheckedCommand(Tool):
    """Stands in for ``run_command`` whose sandbox outlives the command: its result carries the
    later check (``check``), which the test ends when it chooses."""

    name = "late_checked"
    description = "Run a command."
    parameters = {"type": "object", "properties": {}}
    risk_level = RiskLevel.READ
    reports_when_stopped = True
    title = N_("Run command")
    catalog_description = N_("Run a command.")

    def __init__(self) -> None:
        self.check: Future[CheckedLater] = Future()
        self.waits_for_stop = False
        self.running = threading.Event()

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        if not self.waits_for_stop:
            return ToolResult.ok("ran; what its sandbox leaves is checked when it ends", metadata=STILL_RUNNING,
                                 later_check=self.check)
        self.running.set()
        try:
            await asyncio.Event().wait()  # until the person's Stop
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # its account still reaches the caller, as run_command's does
        return ToolResult.fail(ErrorKind.CANCELLED, "stopped", metadata=STILL_RUNNING, later_check=self.check)


@pytest.fixture
def command() -> LateCheckedCommand:
    return LateCheckedCommand()


@pytest.fixture
def runtime(settings_store: SettingsStore, tmp_path: Path, command: LateCheckedCommand) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=settings_store, data_dir=tmp_path, with_builtins=False,
                        with_plugins=False, extra_tools=[command])
    yield rt
    rt.close()


def _found(workspace: Path) -> CheckedLater:
    return CheckedLater((Planted(".envrc", Change.CREATED, kept=str(workspace.parent / "aside" / ".envrc")),),
                        str(workspace))


def _run(window: MainWindow, qloop, command: LateCheckedCommand) -> None:
    """The chat asks for the command; a command that waits is stopped once it runs."""
    window.set_model(ScriptedModel([call("c1", "late_checked", "{}"), say("Done.")]))

    async def scenario() -> None:
        window.composer.setPlainText("run it")
        window.send()
        done = next_emission(window.session.busy_changed)  # the turn is a task: it has not ended yet
        if command.waits_for_stop:
            assert await asyncio.to_thread(command.running.wait, 10)
            window.stop_button.click()
        assert await within(done) is False

    qloop.run_until_complete(scenario())


def _card(window: MainWindow) -> TranscriptItem:
    return next(item for item in window.session.transcript.items() if item.kind == TOOL and item.call_id == "c1")


def _reopened(qtbot, runtime: Runtime, tmp_path: Path, window: MainWindow) -> TranscriptItem:
    """The conversation opened from the list of a new window over a new store on the same file."""
    conversation = window.session.conversation
    assert conversation is not None
    window.session.flush_writes()
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    again = attached_window(qtbot, runtime, store)
    again.conversations.reload(str(conversation.id))
    assert again.session.conversation is not None and again.session.conversation.id == conversation.id
    card = _card(again)
    store.close()
    return card


def _tells_the_check(card: TranscriptItem) -> None:
    for language, put_aside, still_ran in (("en", ".envrc (new: put aside)", "still ran in the sandbox"),
                                           ("zh_CN", ".envrc（新建：已移走）", "沙箱中仍有它的进程在运行")):
        i18n_qt.apply_language(language)
        try:
            html = card_html(card, "Run command")
            assert put_aside in html and still_ran not in html, (language, html)
        finally:
            i18n_qt.apply_language("en")


@pytest.mark.parametrize("stopped", [False, True], ids=["ran", "stopped"])
def test_a_check_that_ends_after_the_message_was_saved_is_in_the_reopened_card(
        window: MainWindow, qloop, qtbot, runtime: Runtime, tmp_path: Path, workspace: Path,
        command: LateCheckedCommand, stopped: bool) -> None:
    command.waits_for_stop = stopped
    _run(window, qloop, command)
    window.session.flush_writes()  # the message is saved with the first account
    assert "still ran in the sandbox" in card_html(_card(window), "Run command")
    threading.Thread(target=command.check.set_result, args=(_found(workspace),)).start()  # the sandbox ends
    qtbot.waitUntil(lambda: ".envrc (new: put aside)" in card_html(_card(window), "Run command"), timeout=5000)
    _tells_the_check(_reopened(qtbot, runtime, tmp_path, window))


def test_a_check_that_ended_before_the_message_was_saved_is_in_the_reopened_card(
        window: MainWindow, qloop, qtbot, runtime: Runtime, tmp_path: Path, workspace: Path,
        command: LateCheckedCommand) -> None:
    command.check.set_result(_found(workspace))  # ended as the result went
    _run(window, qloop, command)
    qtbot.waitUntil(lambda: ".envrc (new: put aside)" in card_html(_card(window), "Run command"), timeout=5000)
    _tells_the_check(_reopened(qtbot, runtime, tmp_path, window))
