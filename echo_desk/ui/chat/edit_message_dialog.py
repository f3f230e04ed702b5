"""Editing a sent message: the new text is sent as a new version; the old one and the turns
after it stay reachable with the "‹ 1/2 ›" switcher."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from echo_desk.i18n import _


class EditMessageDialog(QDialog):
    """The message's text to change; Send (Ctrl+Enter) accepts with :meth:`text`."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Edit message"))
        self.resize(560, 300)
        layout = QVBoxLayout(self)
        note = QLabel(_("Sending starts a new version of the conversation from here. The answers after "
                        "this message stay in the old version; switch back with ‹ ›."))
        note.setWordWrap(True)
        layout.addWidget(note)
        self.editor = QPlainTextEdit()
        self.editor.setPlainText(text)
        self.editor.setAccessibleName(_("Message"))
        layout.addWidget(self.editor, 1)
        self.buttons = QDialogButtonBox()
        self.send_button = self.buttons.addButton(_("Send"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.accepted.connect(self._accept_if_text)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(sequence), self.editor, self._accept_if_text)
        self.editor.textChanged.connect(lambda: self.send_button.setEnabled(bool(self.text())))
        self.editor.setFocus()

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def _accept_if_text(self) -> None:
        if self.text():
            self.accept()
