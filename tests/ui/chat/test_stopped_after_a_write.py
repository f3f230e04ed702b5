"""Stop pressed while a tool that already wrote still runs: the chat names the files changed
before the stop and how to undo them (the engine records them: tests/undo/test_interrupted_calls.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import ErrorKind
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.core import i18n_qt
from tests.ui.chat.test_revert import _click_revert, _show_card, chat_with_revert
from tests.ui.conftest import next_emission, within
from tests.ui.fake_model import ScriptedModel, call, say
from tests.undo.test_interrupted_calls import NEW, OLD, SlowWriter


@pytest.fixture
def slow_writer() -> SlowWriter:
    return SlowWriter(blocks=False)


@pytest.fixture
def runtime(settings_store: SettingsStore, tmp_path: Path, slow_writer: SlowWriter) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=settings_store, data_dir=tmp_path, with_builtins=False,
                        with_plugins=False, extra_tools=[slow_writer])
    rt.settings.set_tool("slow_writer", policy=ToolPolicy.ALWAYS)
    yield rt
    rt.close()


def _stop_after_the_write(window: MainWindow, qloop, slow_writer: SlowWriter) -> bool:
    """The chat asks for a write; Stop is pressed once the tool has written and goes on working.
    What the window's busy signal said at the end (False: no longer busy)."""
    window.set_model(ScriptedModel([call("c1", "slow_writer", '{"path": "notes.txt"}'), say("Done.")]))

    async def scenario() -> bool:
        window.composer.setPlainText("write the notes")
        window.send()
        assert await asyncio.to_thread(slow_writer.wrote.wait, 10)
        done = next_emission(window.session.busy_changed)
        window.stop_button.click()
        return await within(done)

    return qloop.run_until_complete(scenario())


def test_stop_after_a_write_names_the_file_and_how_to_undo_it(
        window: MainWindow, qloop, qtbot, workspace: Path, slow_writer: SlowWriter) -> None:
    assert _stop_after_the_write(window, qloop, slow_writer) is False
    assert (workspace / "notes.txt").read_bytes() == NEW

    def said() -> str:
        notices = [i.text for i in window.session.transcript.items() if i.kind == "notice"]
        return next((text for text in notices if "Before the stop" in text), "")

    qtbot.waitUntil(lambda: bool(said()), timeout=10_000)
    assert str(workspace.resolve() / "notes.txt") in said() and "Revert this turn" in said()


def test_the_stopped_card_names_what_changed_and_reverts_it(
        window: MainWindow, qloop, qtbot, workspace: Path, slow_writer: SlowWriter) -> None:
    (workspace / "notes.txt").write_bytes(OLD)
    assert _stop_after_the_write(window, qloop, slow_writer) is False
    model = window.session.transcript
    row = next(i for i, item in enumerate(model.items()) if item.call_id == "c1")
    card = model.items()[row]
    qtbot.waitUntil(lambda: bool(card.changed_before_stop), timeout=10_000)
    assert card.status is ToolStatus.CANCELLED and card.changed_before_stop == (str(workspace.resolve() / "notes.txt"),)
    # Named, not counted: the check after the stop compares files and makes no diff ("+0 −0").
    assert "Changed before the stop" in card_html(card, "Slow writer") and "+0" not in card_html(card, "Slow writer")
    # The model reads the engine's words (its record's, the dispatcher's); the person reads theirs,
    # in their language.
    assert card.error_kind == ErrorKind.CANCELLED and card.error == "stopped while it ran"
    assert "You stopped this call." in card_html(card, "Slow writer")
    i18n_qt.apply_language("zh_CN")
    assert "停止之前已更改" in card_html(card, "Slow writer") and "你停止了这次调用" in card_html(card, "Slow writer")
    i18n_qt.apply_language("en")
    _click_revert(qtbot, window.transcript, row)
    qtbot.waitUntil(lambda: card.reverted, timeout=10_000)
    assert (workspace / "notes.txt").read_bytes() == OLD



def test_a_call_out_of_time_that_wrote_offers_revert_on_its_card(
        qtbot, qloop, runtime: Runtime, slow_writer: SlowWriter, workspace: Path) -> None:
    slow_writer.timeout_seconds = 0.5
    (workspace / "notes.txt").write_bytes(b"before\n")
    scope = Scope(label="conversation", workspace_roots=(workspace,))
    tool_call = ToolCall(id="t1", name="slow_writer", arguments='{"path": "notes.txt"}')
    envelope = qloop.run_until_complete(runtime.dispatcher.execute_tool(tool_call, scope, ScriptedHost()))
    assert envelope.error_kind is ErrorKind.TIMEOUT and envelope.file_changes
    view, model, _flow = chat_with_revert(qtbot, runtime)
    _show_card(model, tool_call, envelope)
    assert model.items()[0].status == "failed"
    _click_revert(qtbot, view, 0)
    qtbot.waitUntil(lambda: model.items()[0].reverted, timeout=5000)
    assert (workspace / "notes.txt").read_bytes() == b"before\n"
