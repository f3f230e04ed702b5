"""The approval dialog by keyboard and screen reader: each Alt key does one thing (no two share a
letter, in English and Chinese, whatever a file is called), captions are tied to what they caption,
a text box says what is left below it, and the scrolled body shows when it has the focus."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QColor, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTabBar, QWidget

from echo_desk.agent.host import ApprovalChoice, ApprovalRequest
from echo_desk.agent.model import ToolCall
from echo_desk.tools import FileChange, FileChangeKind, RiskLevel, Target
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.core.mnemonics import without_mnemonic
from echo_desk.ui.core.palette import contrast
from tests.ui.conftest import next_emission, within
from tests.ui.mnemonic_letters import mnemonic

RULES = """[[rule]]
effect = "allow"
tool = "shell"
pattern = "echo **"
"""


def _edit_request(name: str = "R&D notes.txt", targets: int = 1) -> ApprovalRequest:
    """A file change, built as the engine builds it, with ``targets`` paths to read."""
    path = f"/w/{name}"
    diff = f"--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-old\n+new\n"
    change = FileChange(path=path, kind=FileChangeKind.MODIFY, before_sha256="a" * 64, after_sha256="b" * 64,
                        diff=diff)
    return ApprovalRequest(call_id="c1", tool_name="write_file", tool_title="Write file", risk=RiskLevel.WRITE,
                           scope_id="s", scope_label="conversation", scope_chain=(),
                           arguments={"path": name, "content": "new\n"},
                           targets=tuple(Target(kind="path", value=f"{path}.{i}" if i else path, detail="modify")
                                         for i in range(targets)),
                           file_changes=(change,), summary="", binding="x")


def _alt_keys(dialog: ApprovalDialog) -> list[tuple[str, str, str]]:
    """(letter, what, text) for every Alt key of the dialog as shown: its shortcuts, and the
    marked letters of the buttons, tabs and captions in view."""
    keys: list[tuple[str, str, str]] = []
    for shortcut in dialog.findChildren(QShortcut):
        text = shortcut.key().toString(QKeySequence.SequenceFormat.PortableText)
        if shortcut.isEnabled() and (found := re.fullmatch(r"Alt\+(.)", text)):
            keys.append((found.group(1).lower(), "shortcut", text))
    for button in dialog.findChildren(QAbstractButton):
        if button.isVisibleTo(dialog) and (letter := mnemonic(button.text())):
            keys.append((letter, type(button).__name__, button.text()))
    for label in dialog.findChildren(QLabel):
        if label.isVisibleTo(dialog) and label.buddy() is not None and (letter := mnemonic(label.text())):
            keys.append((letter, "caption", label.text()))
    for bar in dialog.findChildren(QTabBar):
        for i in range(bar.count() if bar.isVisibleTo(dialog) else 0):
            if letter := mnemonic(bar.tabText(i)):
                keys.append((letter, "tab", bar.tabText(i)))
    return keys


def _shared(keys: list[tuple[str, str, str]]) -> list[str]:
    return [f"{what} {text!r} and {other} {other_text!r}"
            for i, (letter, what, text) in enumerate(keys)
            for other_letter, other, other_text in keys[i + 1:] if letter == other_letter]


async def _command_dialog(runtime, scope, command: str) -> tuple[ApprovalDialog, asyncio.Future]:
    host = QtHost()
    opened = next_emission(host.dialog_opened)
    call = ToolCall(id="k1", name="run_command", arguments=json.dumps({"command": command}))
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(call, scope, host))
    return await within(opened), task


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_two_alt_keys_share_a_letter_with_rules_or_a_file_named_with_an_ampersand(
        qtbot, qloop, builtin_runtime, scope, config_dir: Path, language: str) -> None:
    (config_dir / "permissions.toml").write_text(RULES)
    i18n_qt.apply_language(language)

    async def scenario() -> list[tuple[str, str, str]]:
        dialog, task = await _command_dialog(builtin_runtime, scope, "echo hi && ls -la")
        assert dialog.grant_choices is not None and dialog.grant_choices.has_choices
        keys = _alt_keys(dialog)
        dialog.deny.click()
        await within(task)
        return keys

    with_rules = qloop.run_until_complete(scenario())
    edit = ApprovalDialog(_edit_request())
    qtbot.addWidget(edit)
    with_a_file = _alt_keys(edit)
    for keys in (with_rules, with_a_file):
        assert {"a", "d"} <= {letter for letter, what, _text in keys if what == "shortcut"}
        assert _shared(keys) == []
    # The captions have their letters, as Chinese writes them: "参数(&R)".
    captions = [text for _letter, what, text in with_rules + with_a_file if what == "caption"]
    assert len(captions) >= 4
    if language == "zh_CN":
        assert [text for text in captions if not re.search(r"\(&[A-Z]\)", text)] == []


def test_a_file_named_with_an_ampersand_is_shown_whole_and_alt_d_still_denies(qtbot) -> None:
    dialog = ApprovalDialog(_edit_request("R&D notes.txt"))
    qtbot.addWidget(dialog)
    decisions: list = []
    dialog.decided.connect(decisions.append)
    dialog.show()
    qtbot.waitExposed(dialog)
    # Qt shows a tab's text with its letters taken out: the name as written, "&" and all.
    assert without_mnemonic(dialog.tabs.tabText(0)).startswith("R&D notes.txt")
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    QTest.keyClick(dialog, Qt.Key.Key_D, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: bool(decisions))
    assert decisions[0].choice is ApprovalChoice.DENY


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_each_box_is_named_by_its_caption_and_says_what_is_left_below(qtbot, language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = ApprovalDialog(_edit_request(targets=30))  # more targets than the box shows
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for box, caption in ((dialog.targets, dialog.targets_caption), (dialog.arguments, dialog.arguments_caption),
                         (dialog.message, dialog.message_caption)):
        relations = QAccessible.queryAccessibleInterface(box).relations(QAccessible.RelationFlag.Label)
        labels = [interface.text(QAccessible.Text.Name) for interface, _relation in relations]
        assert labels == [without_mnemonic(caption.text())], box.accessibleName()
    # Each Expand button says which box it opens: both are named "Show all of this text".
    expands = [QAccessible.queryAccessibleInterface(box.expand).text(QAccessible.Text.Description)
               for box in (dialog.targets, dialog.arguments)]
    assert expands == [dialog.targets.accessibleName(), dialog.arguments.accessibleName()]
    targets = QAccessible.queryAccessibleInterface(dialog.targets)
    qtbot.waitUntil(lambda: dialog.targets.footer.isVisible())
    assert targets.text(QAccessible.Text.Description) == dialog.targets.marker.text() != ""
    dialog.targets.expand.click()
    bar = dialog.targets.verticalScrollBar()
    qtbot.waitUntil(lambda: not dialog.targets.footer.isVisible() or bar.value() < bar.maximum())
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: targets.text(QAccessible.Text.Description) == "")


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_the_body_shows_a_frame_in_the_accent_colour_while_it_has_the_focus(qtbot, choice: str) -> None:
    palette = theme.apply_theme(choice)
    try:
        dialog = ApprovalDialog(_edit_request())
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
        body = dialog.body_scroll
        assert body.focusPolicy() & Qt.FocusPolicy.TabFocus

        def left_edge() -> QColor:
            return body.grab().toImage().pixelColor(0, body.height() // 2)

        accent = QColor(palette.accent)
        assert QApplication.focusWidget() is not body and left_edge() != accent
        body.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(body.hasFocus)
        qtbot.waitUntil(lambda: left_edge() == accent)
        dialog.deny.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(lambda: left_edge() != accent)
    finally:
        theme.apply_theme("light")


def _spawn_request(qloop, runtime, scope) -> ApprovalRequest:
    """The request a sub-agent's start asks, as the engine builds it (answered No)."""
    from tests.ui.chat.test_subagents_ui import Children, _delegate, _host

    runtime.enable_delegation(Children())
    host = _host(runtime)

    async def asked() -> ApprovalRequest:
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(runtime.dispatcher.execute_tool(
            _delegate(tools=["read_note"], read_only=True), scope, host))
        dialog = await within(opened)
        dialog.deny.click()
        await within(task)
        return dialog.request

    return qloop.run_until_complete(asked())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_alt_w_in_the_sub_agent_dialog_goes_to_what_the_agent_asked_for(
        qtbot, qloop, runtime, scope, language: str) -> None:
    request = _spawn_request(qloop, runtime, scope)
    assert request.spawn is not None
    i18n_qt.apply_language(language)
    dialog = ApprovalDialog(request)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    caption = dialog.arguments_caption.text()
    assert caption == ("智能体请求的内容(&W)" if language == "zh_CN" else "&What the agent asked for")
    keys = _alt_keys(dialog)
    assert [(letter, what) for letter, what, _text in keys if letter == "w"] == [("w", "caption")]
    assert _shared(keys) == []
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    assert not dialog.arguments.hasFocus()
    QTest.keyClick(dialog, Qt.Key.Key_W, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(dialog.arguments.hasFocus)


def _contrast(one: QColor, other: QColor) -> float:
    return contrast(one.name(), other.name())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("choice", ["light", "dark"])
def test_the_dialogs_text_boxes_have_an_edge_that_shows_in_both_themes(
        qtbot, choice: str, language: str) -> None:
    """Qt draws the edge of Targets, Arguments and the message from the window colour, which all
    but vanished on the dark base: the theme's field edge (``field_edges``) is as wide as Qt's
    (nothing moves), 3:1 against what is on either side, the accent colour with the focus."""
    from PySide6.QtWidgets import QLineEdit, QPlainTextEdit

    palette = theme.apply_theme(choice)
    i18n_qt.apply_language(language)
    try:
        dialog = ApprovalDialog(_edit_request(targets=3))
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
        plain_box, plain_line = QPlainTextEdit(), QLineEdit()
        for widget in (plain_box, plain_line):
            qtbot.addWidget(widget)
        assert dialog.targets.frameWidth() == dialog.arguments.frameWidth() == plain_box.frameWidth()
        assert dialog.message.height() == plain_line.sizeHint().height()
        for box in (dialog.targets, dialog.arguments, dialog.message):
            middle = box.height() // 2

            def edge(box: QWidget = box, middle: int = middle) -> QColor:
                return box.grab().toImage().pixelColor(0, middle)

            inside = box.grab().toImage().pixelColor(box.width() // 2, 2)
            assert inside == QColor(palette.base)
            assert _contrast(edge(), inside) >= 3 and _contrast(edge(), QColor(palette.window)) >= 3, (
                box.accessibleName(), edge().name())
            box.setFocus(Qt.FocusReason.TabFocusReason)
            qtbot.waitUntil(lambda edge=edge: edge() == QColor(palette.accent))
    finally:
        theme.apply_theme("light")
