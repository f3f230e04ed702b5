"""Asked when an attached file or folder lies outside the workspace: copy it in, let the agent
read it in this conversation (a read grant), or leave it out."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.agent.attachments import Attachment


class OutsideChoice(enum.Enum):
    COPY = "copy"
    GRANT = "grant"
    CANCEL = "cancel"


class OutsideChoiceDialog(QDialog):
    """``decided`` carries the ``OutsideChoice``; closing the window is ``CANCEL``."""

    decided = Signal(object)

    def __init__(self, attachment: Attachment, workspace: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachment = attachment
        self.setWindowTitle(_("Outside the workspace"))
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        kind = _("folder") if attachment.is_dir else _("file")
        self.question = QLabel(_("This {kind} is outside the workspace, so the agent cannot read it yet:")
                               .format(kind=kind))
        self.question.setWordWrap(True)
        self.path = QLabel(visible(str(attachment.real)))  # untrusted text: plain, escapes visible
        self.path.setTextFormat(Qt.TextFormat.PlainText)
        self.path.setWordWrap(True)
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        theme.styled(self.path, lambda p: f"font-family: monospace; padding: 4px; background: {p.code_bg};")
        linked = attachment.given != attachment.real
        self.link_note = QLabel(_("(you dropped {given}, a link to it)").format(given=visible(str(attachment.given))))
        self.link_note.setTextFormat(Qt.TextFormat.PlainText)
        self.link_note.setWordWrap(True)
        self.link_note.setVisible(linked)
        self.where = QLabel(_("Workspace: {path}").format(path=visible(workspace) or _("none")))
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setWordWrap(True)
        for label in (self.question, self.path, self.link_note, self.where):
            layout.addWidget(label)
        self.copy_button = QPushButton(_("Copy it into the workspace"))
        self.copy_button.setToolTip(_("A copy goes to the attachments folder of the workspace; the original is not changed."))
        self.copy_button.setEnabled(bool(workspace))
        self.grant_button = QPushButton(_("Let the agent read it in this conversation"))
        self.grant_button.setToolTip(_("Adds a read grant for this path only, for this conversation. "
                                       "You can revoke it in Settings › Permissions › Grants."))
        self.cancel_button = QPushButton(_("Cancel"))
        for button, choice in ((self.copy_button, OutsideChoice.COPY), (self.grant_button, OutsideChoice.GRANT),
                               (self.cancel_button, OutsideChoice.CANCEL)):
            button.clicked.connect(lambda _checked=False, c=choice: self._choose(c))
            layout.addWidget(button)
        self.copy_button.setDefault(True)
        self._done = False

    def _choose(self, choice: OutsideChoice) -> None:
        if not self._done:
            self._done = True
            self.decided.emit(choice)
        if choice is OutsideChoice.CANCEL:
            self.reject()
        else:
            self.accept()

    def reject(self) -> None:
        if not self._done:
            self._done = True
            self.decided.emit(OutsideChoice.CANCEL)
        super().reject()
