"""Sending with no workspace asks which folder (the default proposed) instead of failing."""

from __future__ import annotations

from pathlib import Path

from echo_desk.store import first_workspace
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.first_workspace import DefaultWorkspace, WorkspaceOrigin
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import attached_window, until
from tests.ui.fake_model import ScriptedModel, say


def _window(qtbot, runtime, tmp_path: Path) -> tuple[MainWindow, ConversationStore]:  # type: ignore[no-untyped-def]
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    store.create("Old chat", "", "")  # from before workspaces were remembered: none
    win = attached_window(qtbot, runtime, store)
    return win, store


def test_send_without_a_workspace_offers_the_default_and_then_sends(qtbot, qloop, runtime, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "Documents" / "Echo Desk"
    monkeypatch.setattr(first_workspace, "default_workspace",
                        lambda: DefaultWorkspace(folder, WorkspaceOrigin.DOCUMENTS))
    win, store = _window(qtbot, runtime, tmp_path)
    model = ScriptedModel([say("It is empty.")])
    win.set_model(model)
    try:
        assert win.workspace_folder() == ""
        win.composer.setPlainText("What is in this folder?")
        win.send()
        prompt = win.workspace_prompt
        assert prompt.isVisibleTo(win)
        assert win.composer.toPlainText() == "What is in this folder?"  # nothing lost
        assert win.session.transcript.rowCount() == 0 and model.seen_messages == []  # nothing sent
        assert prompt.use_default.text() == f"Use {folder}"
        assert "Documents" in prompt.use_default.toolTip()
        assert not folder.exists()  # proposed, not created until chosen

        prompt.use_default.click()
        qloop.run_until_complete(until(lambda: bool(model.seen_messages) and not win.session.busy))
        assert folder.is_dir()
        assert not prompt.isVisibleTo(win)
        assert win.workspace_folder() == str(folder.resolve())
        assert win.composer.toPlainText() == ""
        system = model.seen_messages[0][0]
        assert system.role == "system" and str(folder.resolve()) in system.content
        assert model.seen_messages[0][-1].content == "What is in this folder?"
        assert store.get(win.session.conversation.id).workspace == str(folder.resolve())
    finally:
        win.session.stop()
        store.close()


def test_a_recent_folder_can_be_picked_and_the_prompt_speaks_chinese(qtbot, qloop, runtime, tmp_path) -> None:  # type: ignore[no-untyped-def]
    recent = tmp_path / "project"
    recent.mkdir()
    runtime.settings.update(lambda s: setattr(s, "recent_workspaces", [str(recent)]))
    win, store = _window(qtbot, runtime, tmp_path)
    model = ScriptedModel([say("好的。")])
    win.set_model(model)
    i18n_qt.apply_language("zh_CN")
    try:
        win._workspace = ""  # the old conversation has none
        win.composer.setPlainText("你好")
        win.send()
        prompt = win.workspace_prompt
        assert prompt.isVisibleTo(win) and "文件夹" in prompt.question.text()
        assert [b.text() for b in prompt.recent_buttons] == [str(recent)]
        prompt.recent_buttons[0].click()
        qloop.run_until_complete(until(lambda: bool(model.seen_messages) and not win.session.busy))
        assert win.workspace_folder() == str(recent.resolve())
    finally:
        i18n_qt.apply_language("en")
        win.session.stop()
        store.close()
