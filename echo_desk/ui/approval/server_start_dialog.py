"""Approving an MCP server's first start: the exact command line, args, env names, or URL.

Escape, Enter and closing the window all refuse; only "Start this server" allows it. The
answer is bound to the request's fingerprint by the MCP manager.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QFontDatabase
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text
from echo_desk.ui.core import i18n_qt, theme

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
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.details, 1)
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

    def retranslate(self, *_args: object) -> None:
        name = visible(self.request.server, one_line=True)  # a configured name is untrusted text
        self.setWindowTitle(_("Start the MCP server “{name}”?").format(name=name))
        self.heading.setText(_("Echo Desk wants to start the MCP server “{name}”. It will run on your computer "
                               "with your permissions.").format(name=name))
        self.heading.setAccessibleName(self.heading.text())
        self.changed.setText(_("Its configuration changed since you last approved it."))
        self.changed.setAccessibleName(self.changed.text())
        self.details.setPlainText(describe(self.request))
        self.details.setAccessibleName(_("What will be started"))
        self.allow.setText(_("Start this server"))
        self.allow.setAccessibleName(_("Start this server"))
        self.refuse.setText(_("Don't start"))
        self.refuse.setAccessibleName(_("Don't start this server"))

    def _finish(self, allowed: bool) -> None:
        if self.answer is not None:
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
