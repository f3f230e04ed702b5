"""Approving an MCP server's first start: the exact command line, args, env names, or URL.

Escape, Enter and closing the window all refuse; only "Start this server" allows it, and only
once every line of what starts was in view (a long command says how much is below, as the
approval dialog's boxes do). The answer is bound to the request's fingerprint by the MCP manager.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from echo_desk.common.visible_text import any_hidden, visible
from echo_desk.i18n import _, list_text
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.widgets.full_text_box import FullTextBox
from echo_desk.ui.widgets.warning_note import warning_note

if TYPE_CHECKING:  # the MCP package loads after the window shows
    from echo_desk.mcp.status import ServerStartRequest


def describe(request: ServerStartRequest) -> str:
    """Everything the server start involves, in full, one fact per line: a line feed in a value
    (an argument, the folder) is shown as ⟨LF⟩, never as a line that reads as another fact."""

    def one(value: str) -> str:
        return visible(value, one_line=True)

    lines: list[str] = []
    if request.command:
        lines.append(_("Command line: {cmd}").format(cmd=one(shlex.join(request.command_line))))
        lines.append(_("Program: {cmd}").format(cmd=one(request.command)))
        for i, arg in enumerate(request.args, 1):
            lines.append(_("Argument {n}: {arg}").format(n=i, arg=one(arg)))
        if request.cwd:
            lines.append(_("Working folder: {cwd}").format(cwd=one(request.cwd)))
        names = list_text(one(n) for n in request.env_names) if request.env_names else _("none")
        lines.append(_("Environment variables set (values not shown): {names}").format(names=names))
    if request.url:
        lines.append(_("Server URL: {url}").format(url=one(request.url)))
        names = list_text(one(n) for n in request.header_names) if request.header_names else _("none")
        lines.append(_("Headers sent (values not shown): {names}").format(names=names))
    lines.append(_("Transport: {transport}").format(transport=one(request.transport)))
    return "\n".join(lines)


def hides_text(request: ServerStartRequest) -> bool:
    """Whether a value of the request holds a character ``visible`` shows as ``⟨…⟩``."""
    return any_hidden([request.server, request.command, list(request.args), request.cwd, request.url,
                       list(request.env_names), list(request.header_names), request.transport])


class ServerStartDialog(QDialog):
    decided = Signal(bool)

    def __init__(self, request: ServerStartRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.answer: bool | None = None
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(760, 420)
        layout = QVBoxLayout(self)
        heading = QLabel()
        heading.setTextFormat(Qt.TextFormat.PlainText)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        self.heading = heading
        self.changed = QLabel()
        theme.styled(self.changed, lambda p: f"color: {p.warn}; background: {p.warn_bg}; padding: 4px;")
        self.changed.setVisible(bool(request.previous_fingerprint))
        layout.addWidget(self.changed)
        self.hidden_warning = warning_note(shown=hides_text(request))
        layout.addWidget(self.hidden_warning)
        # Every line must have been in view before it can start: 200 harmless flags must not
        # push the one that matters below the fold of an answer given at a glance.
        self.details = FullTextBox(describe(request), most_lines=16)
        self.details.loaded.connect(self._update_allow)
        layout.addWidget(self.details)
        layout.addWidget(self.details.footer)
        layout.addStretch(1)
        buttons = QHBoxLayout()
        self.allow = QPushButton()
        self.allow.setAutoDefault(False)
        self.refuse = QPushButton()
        self.refuse.setDefault(True)
        self.allow.clicked.connect(lambda: self._finish(True))
        self.refuse.clicked.connect(lambda: self._finish(False))
        buttons.addWidget(self.allow)
        buttons.addStretch(1)
        buttons.addWidget(self.refuse)
        layout.addLayout(buttons)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        self.refuse.setFocus()
        self._update_allow()

    def _update_allow(self) -> None:
        self.allow.setEnabled(self.details.is_loaded)

    def retranslate(self, *_args: object) -> None:
        name = visible(self.request.server, one_line=True)  # a configured name is untrusted text
        self.setWindowTitle(_("Start the MCP server “{name}”?").format(name=name))
        self.heading.setText(_("Echo Desk wants to start the MCP server “{name}”. It will run on your computer "
                               "with your permissions.").format(name=name))
        self.heading.setAccessibleName(self.heading.text())
        self.changed.setText(_("Its configuration changed since you last approved it."))
        self.changed.setAccessibleName(self.changed.text())
        self.hidden_warning.setText(_("What starts holds hidden or control characters (bidi, zero-width, line "
                                      "feeds…). They are shown as ⟨U+…⟩ where they are: read it carefully."))
        if self.details.toPlainText() != describe(self.request):
            self.details.setPlainText(describe(self.request))  # same lines, labels in the new language
        self.details.setAccessibleName(_("What will be started"))
        self.allow.setText(_("Start this server"))
        self.allow.setAccessibleName(_("Start this server"))
        self.refuse.setText(_("Don't start"))
        self.refuse.setAccessibleName(_("Don't start this server"))

    def _finish(self, allowed: bool) -> None:
        if self.answer is not None or (allowed and not self.details.is_loaded):
            return
        self.answer = allowed
        self.decided.emit(allowed)
        if allowed:
            super().accept()
        else:
            super().reject()

    def reject(self) -> None:
        self._finish(False)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._finish(False)
        super().closeEvent(event)
