"""First run: a conversation gets a default workspace, and the window says which."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.store import first_workspace
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.first_workspace import DefaultWorkspace, WorkspaceOrigin
from echo_desk.ui.chat.chat_window import MainWindow
from tests.ui.conftest import attached_window


def _open_window(qtbot, runtime, tmp_path: Path) -> tuple[MainWindow, ConversationStore]:  # type: ignore[no-untyped-def]
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    return win, store


@pytest.mark.parametrize(("origin", "words"), [
    (WorkspaceOrigin.DOCUMENTS, "new folder in your Documents"),
    (WorkspaceOrigin.START_FOLDER, "started from"),
])
def test_first_conversation_gets_a_default_workspace_and_says_which(
    qtbot, qloop, runtime, tmp_path, monkeypatch, origin, words  # type: ignore[no-untyped-def]
) -> None:
    folder = tmp_path / "Documents" / "Echo Desk"
    monkeypatch.setattr(first_workspace, "default_workspace", lambda: DefaultWorkspace(folder, origin))
    win, store = _open_window(qtbot, runtime, tmp_path)
    try:
        assert folder.is_dir()  # created on first use
        assert win.workspace_folder() == str(folder.resolve())
        assert win.session.scope is not None and win.session.scope.workspace_roots == (folder.resolve(),)
        assert store.get(win.session.conversation.id).workspace == str(folder.resolve())  # remembered
        assert win.workspace_origin.isVisibleTo(win) and words in win.workspace_origin.text()
        chosen = tmp_path / "mine"
        chosen.mkdir()
        win.set_workspace(str(chosen))
        assert win.workspace_folder() == str(chosen.resolve())
        assert not win.workspace_origin.isVisibleTo(win)  # the person's own choice needs no note
    finally:
        win.session.stop()
        store.close()


def test_a_long_workspace_path_is_elided_and_leaves_the_side_panel_its_room(qtbot, qloop, runtime, tmp_path) -> None:  # type: ignore[no-untyped-def]
    win, store = _open_window(qtbot, runtime, tmp_path)
    try:
        deep = tmp_path.joinpath(*(["a-rather-long-folder-name"] * 8))
        deep.mkdir(parents=True)
        win.resize(1180, 760)
        win.show()
        win.set_workspace(str(deep))
        qtbot.waitUntil(lambda: win.workspace_button.text() != "")
        full = str(deep.resolve())
        assert win.workspace_button.full_text() == full and win.workspace_button.toolTip() == full
        assert "…" in win.workspace_button.text() and len(win.workspace_button.text()) < len(full)
        assert win.todos.width() >= 150  # it was squeezed to a few pixels by the full path
    finally:
        win.session.stop()
        store.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_in_a_900_pixel_window_the_workspace_button_keeps_the_folders_name(qtbot, qloop, runtime, tmp_path,  # type: ignore[no-untyped-def]
                                                                           language) -> None:
    # Before: elided in the middle to the 50 pixels left beside the model picker, it read "/…n".
    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language(language)
    win, store = _open_window(qtbot, runtime, tmp_path)
    try:
        folder = tmp_path / "quarterly-report"
        folder.mkdir()
        win.resize(900, 700)
        win.show()
        win.set_workspace(str(folder))
        qtbot.waitUntil(lambda: win.workspace_button.text().endswith("quarterly-report"))
        assert win.workspace_button.text() in (str(folder.resolve()), "…/quarterly-report")
        assert win.workspace_button.toolTip() == str(folder.resolve())
        assert win.todos.width() >= 120  # the task list keeps a readable column beside it
    finally:
        win.session.stop()
        store.close()
        i18n_qt.apply_language("en")
