"""Attachments in the real window: drops on the window and the prompt, the outside-workspace
choice (copy or a read grant in the real permission engine), images as thumbnails and as image
content to the model, and a model that cannot read images saying so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from echo_desk.agent.attachments.reads import GRANT_CALL_PREFIX
from echo_desk.agent.permissions import GrantScope
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.outside_choice import OutsideChoiceDialog
from echo_desk.ui.chat.transcript import USER
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel, say


@pytest.fixture
def window(qtbot, qloop, builtin_runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, builtin_runtime, store)
    yield win
    win.session.stop()
    store.close()


@pytest.fixture
def places(tmp_path: Path, window: MainWindow) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    outside = tmp_path / "elsewhere"
    (ws / "docs").mkdir(parents=True)
    outside.mkdir()
    (ws / "docs" / "plan.md").write_text("the plan\n")
    (outside / "report.txt").write_text("quarterly numbers\n")
    window.set_workspace(str(ws))
    return ws.resolve(), outside.resolve()


def drop(target: QWidget, *paths: Path) -> bool:
    """A real drag-enter and drop of ``paths`` on ``target``; True when the drop was accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, event)
    return event.isAccepted()


def png(path: Path, size: int = 200) -> Path:
    image = QImage(size, size // 2, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkCyan)
    assert image.save(str(path), "PNG")
    return path


def connect(window: MainWindow, model: ScriptedModel) -> None:
    window.services.model = model
    window.set_model(model)


def send_and_wait(window: MainWindow, qloop) -> None:
    async def scenario() -> None:
        window.send_button.click()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())


def test_a_file_dropped_on_the_prompt_inside_the_workspace_becomes_a_mention(window, places, qloop) -> None:
    ws, _ = places
    assert drop(window.composer.viewport(), ws / "docs" / "plan.md")
    assert window.attachments.dialog is None  # inside: nothing to ask
    (chip,) = window.attachment_tray.chips
    assert chip.label.text() == "@docs/plan.md" and window.attachment_tray.isVisibleTo(window)
    model = ScriptedModel([say("Read it.")])
    connect(window, model)
    window.composer.setPlainText("What does the plan say?")
    send_and_wait(window, qloop)
    user = model.seen_messages[0][-1]
    assert user.role == "user" and user.content.startswith("What does the plan say?")
    assert "@docs/plan.md (file, in the workspace)" in user.content
    assert window.attachment_tray.chips == [] and window.composer.toPlainText() == ""
    # The transcript and the store keep what the person typed, with the path as data.
    item = next(i for i in window.session.transcript.items() if i.kind == USER)
    assert item.text == "What does the plan say?" and [a.mention for a in item.attachments] == ["@docs/plan.md"]
    doc = window.transcript.itemDelegate().document(item)
    assert "Attached: @docs/plan.md" in doc.toPlainText() and "Attached by the person" not in doc.toPlainText()
    window.session.flush_writes()
    (stored, *_rest) = window.services.conversations.messages(window.session.conversation.id)
    assert stored.message.content == "What does the plan say?"
    assert [a.mention for a in stored.message.attachments] == ["@docs/plan.md"]
    assert window.session.conversation.title == "What does the plan say?"


def test_a_folder_dropped_on_the_window_is_a_mention_too(window, places) -> None:
    ws, _ = places
    assert drop(window, ws / "docs")
    assert [c.label.text() for c in window.attachment_tray.chips] == ["@docs"]


def _menu_dialog(window: MainWindow, text: str) -> QFileDialog:
    """Choose ``text`` in the paperclip's menu; the file dialog it opens."""
    menu = window.attach_button.menu()
    action = next(a for a in menu.actions() if a.text() == text)
    action.trigger()
    dialog = window.attachments.file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    return dialog


def test_the_paperclip_offers_files_a_folder_and_an_mcp_resource(window, places) -> None:
    ws, _ = places
    assert [a.text() for a in window.attach_button.menu().actions()] == ["Files…", "Folder…", "MCP resource…"]
    dialog = _menu_dialog(window, "Files…")
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    assert Path(dialog.directory().absolutePath()).resolve() == ws  # it starts in the workspace
    dialog.reject()


def test_a_folder_picked_with_the_paperclip_is_a_mention(window, places, qtbot) -> None:
    ws, _ = places
    dialog = _menu_dialog(window, "Folder…")
    assert dialog.fileMode() == QFileDialog.FileMode.Directory
    assert dialog.testOption(QFileDialog.Option.ShowDirsOnly)
    with qtbot.waitSignal(dialog.filesSelected, timeout=5000):
        dialog.selectFile(str(ws / "docs"))
        dialog.accept()
    assert [c.label.text() for c in window.attachment_tray.chips] == ["@docs"]


def test_an_outside_folder_picked_with_the_paperclip_is_asked_about(window, places) -> None:
    _, outside = places
    dialog = _menu_dialog(window, "Folder…")
    dialog.selectFile(str(outside))
    dialog.accept()
    assert window.attachment_tray.chips == []  # nothing attached before the answer
    choice = window.attachments.dialog
    assert isinstance(choice, OutsideChoiceDialog) and str(outside) in choice.path.text()
    choice.reject()


def _answer(window: MainWindow, button: str) -> OutsideChoiceDialog:
    dialog = window.attachments.dialog
    assert isinstance(dialog, OutsideChoiceDialog) and dialog.isVisible()
    getattr(dialog, button).click()
    return dialog


def test_outside_the_workspace_the_person_chooses_copy(window, places, qtbot) -> None:
    ws, outside = places
    assert drop(window.composer.viewport(), outside / "report.txt")
    assert window.attachment_tray.chips == []  # nothing attached before the answer
    dialog = _answer(window, "copy_button")
    assert str(outside / "report.txt") in dialog.path.text()
    qtbot.waitUntil(lambda: window.attachments.copying == 0 and bool(window.attachment_tray.chips))
    assert (ws / "attachments" / "report.txt").read_text() == "quarterly numbers\n"
    assert [c.label.text() for c in window.attachment_tray.chips] == ["@attachments/report.txt"]


def test_outside_the_workspace_a_read_grant_is_made_for_this_conversation(window, places, builtin_runtime) -> None:
    _, outside = places
    assert drop(window, outside / "report.txt")
    _answer(window, "grant_button")
    engine = builtin_runtime.permissions
    (grant,) = [g for g in engine.active_grants() if g.created_by_call.startswith(GRANT_CALL_PREFIX)]
    assert grant.tool == "read" and grant.scope is GrantScope.CONVERSATION
    assert grant.conversation_id == str(window.session.conversation.id)
    assert grant.pattern == "/" + str(outside / "report.txt")
    assert [c.label.text() for c in window.attachment_tray.chips] == [str(outside / "report.txt")]


def test_cancel_attaches_nothing_and_grants_nothing(window, places, builtin_runtime) -> None:
    _, outside = places
    assert drop(window, outside / "report.txt")
    _answer(window, "cancel_button")
    assert window.attachment_tray.chips == [] and builtin_runtime.permissions.active_grants() == []
    assert not any((places[0]).rglob("report.txt"))


def test_hostile_a_symlink_in_the_workspace_to_an_outside_file_asks(window, places) -> None:
    ws, outside = places
    (ws / "docs" / "looks_local.txt").symlink_to(outside / "report.txt")
    assert drop(window.composer.viewport(), ws / "docs" / "looks_local.txt")
    dialog = window.attachments.dialog
    assert isinstance(dialog, OutsideChoiceDialog)
    assert dialog.path.text() == str(outside / "report.txt") and dialog.link_note.isVisibleTo(dialog)
    _answer(window, "cancel_button")
    assert window.attachment_tray.chips == []


def test_two_outside_files_are_asked_one_after_the_other(window, places, qtbot) -> None:
    _, outside = places
    (outside / "second.txt").write_text("2")
    assert drop(window, outside / "report.txt", outside / "second.txt")
    first = _answer(window, "copy_button")
    qtbot.waitUntil(lambda: window.attachments.dialog is not None)  # asked once the first copy is done
    second = _answer(window, "copy_button")
    qtbot.waitUntil(lambda: len(window.attachment_tray.chips) == 2)
    assert first is not second
    assert [c.label.text() for c in window.attachment_tray.chips] == ["@attachments/report.txt",
                                                                     "@attachments/second.txt"]


def test_a_missing_file_says_so_under_the_prompt(window, places) -> None:
    ws, _ = places
    window.attachments.add_paths([ws / "gone.txt"])
    assert window.attachment_tray.problem.isVisibleTo(window)
    assert "does not exist" in window.attachment_tray.problem.text()
    assert window.attachment_tray.chips == []


def test_an_image_is_a_thumbnail_in_the_prompt_and_the_message_and_image_content_for_the_model(
        window, places, qloop) -> None:
    ws, _ = places
    picture = png(ws / "chart.png")
    assert drop(window.composer.viewport(), picture)
    (chip,) = window.attachment_tray.chips
    thumb = chip.thumb.pixmap()
    assert not thumb.isNull() and max(thumb.width(), thumb.height()) == 48
    model = ScriptedModel([say("A cyan box.")])
    model.image_types = frozenset({"image/png"})  # type: ignore[attr-defined]
    connect(window, model)
    window.composer.setPlainText("What is this?")
    send_and_wait(window, qloop)
    user = model.seen_messages[0][-1]
    assert len(user.images) == 1 and user.images[0].mime == "image/png"
    assert user.images[0].data == picture.read_bytes()
    item = next(i for i in window.session.transcript.items() if i.kind == USER)
    assert item.images == user.images
    doc = window.transcript.itemDelegate().document(item)
    resource = doc.resource(doc.ResourceType.ImageResource.value, QUrl("attachment-image:0"))
    assert resource is not None and not resource.isNull()

    # Stored with the conversation: reopened, the thumbnail and the image for the model come back.
    window.session.flush_writes()
    window.session.open(window.session.conversation)
    assert window.session.history[0].images == user.images
    reopened = next(i for i in window.session.transcript.items() if i.kind == USER)
    assert reopened.images == user.images


def test_a_stored_image_whose_file_is_gone_leaves_the_text(tmp_path) -> None:
    from echo_desk.chat_messages import ChatMessage, ImagePart
    from echo_desk.store.message_attachments import FOLDER

    store = ConversationStore(tmp_path / "c.sqlite3")
    conv = store.create("t")
    store.append(conv.id, ChatMessage(role="user", content="see chart.png",
                                      images=(ImagePart(mime="image/png", data=b"png-bytes", name="chart.png"),)))
    (kept,) = store.messages(conv.id)
    assert kept.message.images[0].data == b"png-bytes"
    for blob in (tmp_path / FOLDER).rglob("*"):
        if blob.is_file():
            blob.unlink()
    (again,) = store.messages(conv.id)
    assert again.message.images == () and again.message.content == "see chart.png"
    store.close()


def test_a_model_that_cannot_read_images_says_so_and_nothing_is_lost(window, places, qloop) -> None:
    ws, _ = places
    assert drop(window, png(ws / "photo.png"))
    model = ScriptedModel([say("never")])
    model.image_types = frozenset()  # type: ignore[attr-defined]
    connect(window, model)
    window.composer.setPlainText("Describe it")
    window.send_button.click()
    items = window.session.transcript.items()
    assert items[-1].kind == "error" and "cannot read images" in items[-1].text
    assert "scripted" in items[-1].text
    assert window.session.history == [] and model.seen_messages == []
    assert window.composer.toPlainText() == "Describe it" and len(window.attachment_tray.chips) == 1


def test_a_model_without_image_types_is_treated_as_text_only(window, places) -> None:
    ws, _ = places
    assert drop(window, png(ws / "photo.png"))
    connect(window, ScriptedModel([say("never")]))  # no image_types attribute at all
    window.composer.setPlainText("Describe it")
    window.send_button.click()
    assert "cannot read images" in window.session.transcript.items()[-1].text


def test_the_attachment_grant_is_listed_and_revocable_in_the_grants_tab(window, places, builtin_runtime, qtbot) -> None:
    from echo_desk.ui.settings.grants_tab import GrantsTab

    _, outside = places
    window.attachments.add_paths([outside])
    _answer(window, "grant_button")
    tab = GrantsTab(builtin_runtime.permissions)
    qtbot.addWidget(tab)
    (grant,) = tab.shown
    assert grant.pattern == "/" + str(outside) + "/**"
    assert tab.select_grant(grant.id)
    assert str(outside) in tab.grants.currentItem().text(0)
    tab.revoke_selected()
    assert tab.shown == [] and builtin_runtime.permissions.active_grants() == []


def test_a_copy_over_the_limit_says_so_and_copies_nothing(window, places, qtbot, monkeypatch) -> None:
    ws, outside = places
    monkeypatch.setattr("echo_desk.agent.attachments.copying.MAX_COPY_BYTES", 5)
    window.attachments.add_paths([outside])
    _answer(window, "copy_button")
    qtbot.waitUntil(lambda: window.attachments.copying == 0 and bool(window.attachment_tray.problem.text()))
    assert "nothing was copied" in window.attachment_tray.problem.text()
    assert window.attachment_tray.chips == [] and not (ws / "attachments").exists()


def test_the_window_with_attachments_does_not_load_the_permission_engine_before_its_first_frame() -> None:
    """The window is built and painted before the engine loads; attachments must not pull it in."""
    probe = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
             "from echo_desk.ui.chat.chat_window import MainWindow\nMainWindow()\n"
             "print(sorted(m for m in sys.modules if m.startswith(('echo_desk.agent.permissions', 'tree_sitter'))))")
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=root,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
