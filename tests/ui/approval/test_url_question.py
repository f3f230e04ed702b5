"""A server's URL-mode elicitation in the app: the whole address is shown as plain text with
escapes visible, the button says it opens the browser, and Qt opens the address only when the
person agrees — exactly the address that was shown."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QLabel

from echo_desk.tools import AnswerAction, Question
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.approval.question_dialog import QuestionDialog
from tests.ui.conftest import next_emission, within

URL = "https://pay.example.com/checkout?order=42&note=%E4%BD%A0"


class _Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))


def _question(url: str = URL) -> Question:
    return Question(prompt="Pay for the order", url=url, asked_by="MCP server shop", mcp_server="shop")


def test_the_dialog_shows_the_whole_address_and_where_it_leads(qtbot) -> None:
    dialog = QuestionDialog(_question("https://pay.example.com/\u202eexe.pdf"))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.url is not None and dialog.url_intro is not None
    assert dialog.url.textFormat().name == "PlainText"
    assert dialog.url.text() == "https://pay.example.com/⟨U+202E⟩exe.pdf"  # the bidi control shown, not obeyed
    assert "(pay.example.com)" in dialog.url_intro.text()
    assert dialog.ok.text() == "Open in browser"
    assert dialog.text is None and dialog.choices is None and not dialog.fields
    assert all(label.textFormat().name == "PlainText" for label in dialog.findChildren(QLabel) if label.text())


@pytest.mark.parametrize(("press", "action", "opened"), [
    ("ok", AnswerAction.ACCEPT, [URL]),
    ("decline", AnswerAction.DECLINE, []),
    ("cancel", AnswerAction.CANCEL, []),
])
def test_qt_opens_the_address_only_when_the_person_agrees(qtbot, qloop, press, action, opened) -> None:
    handler = _Opened()
    QDesktopServices.setUrlHandler("https", handler, "open")
    try:
        async def run():
            host = QtHost()
            shown = next_emission(host.dialog_opened)
            task = asyncio.ensure_future(host.ask(_question()))
            dialog: QuestionDialog = await within(shown)
            getattr(dialog, press).click()
            return await within(task)

        answer = qloop.run_until_complete(run())
    finally:
        QDesktopServices.unsetUrlHandler("https")
    assert answer.action is action
    assert handler.urls == opened


def test_a_servers_question_during_another_apps_call_says_for_which_app_in_its_own_window(qtbot, qloop) -> None:
    """Asked through the gateway: the person may be in that app, not in Echo Desk's chat, so the
    question comes in a window of its own (not modal over the chat) and names the app."""
    from dataclasses import replace

    from PySide6.QtWidgets import QWidget

    chat = QWidget()
    qtbot.addWidget(chat)

    async def run():
        host = QtHost(lambda: chat)
        shown = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(host.ask(replace(_question("https://example.com/sign-in"), client="Cursor")))
        dialog: QuestionDialog = await within(shown)
        facts = (dialog.asker.text(), dialog.parent())
        dialog.cancel.click()
        await within(task)
        return facts

    heading, parent = qloop.run_until_complete(run())
    assert heading == "MCP server “shop” asks, during a call from Cursor:"
    assert parent is None  # (window-modal to no window: the chat stays usable)


def test_a_question_during_an_apps_call_cannot_be_answered_the_moment_it_comes_to_the_front(qtbot) -> None:
    """Like that app's approvals, it opens unasked in front of whatever the person was doing: a
    click or Enter meant for the window below opened the server's address (or sent its form)."""
    from dataclasses import replace

    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtWidgets import QApplication

    from echo_desk.ui.approval import front_delay

    dialog = QuestionDialog(replace(_question(), client="Cursor"))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.ok.click()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.answer is None and not dialog.ok.isEnabled() and dialog.decline.isEnabled()
    qtbot.waitUntil(dialog.ok.isEnabled, timeout=front_delay.ARM_DELAY_MS + 2000)
    QApplication.sendEvent(dialog, QEvent(QEvent.Type.WindowActivate))
    assert not dialog.ok.isEnabled()
    qtbot.waitUntil(dialog.ok.isEnabled, timeout=front_delay.ARM_DELAY_MS + 2000)
    dialog.ok.click()
    assert dialog.answer is not None and dialog.answer.action is AnswerAction.ACCEPT
    own = QuestionDialog(_question())  # asked during the chat's own call: no delay
    qtbot.addWidget(own)
    own.show()
    assert own.ok.isEnabled()
