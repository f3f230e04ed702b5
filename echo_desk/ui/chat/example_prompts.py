"""Three example prompts under an empty conversation: one click fills the composer and sends.

Each was checked with the built-in 0.5B model (``echo-desk ask --yes --json``, Dec 2026), in
English and in Chinese: it creates a file, lists the workspace's files in its answer, and answers
a coding question without tools. Tried and dropped: "List the files in the workspace" (the call
ran, but the answer was "The files in the workspace are listed."), "工作区里有哪些文件？" (no
call, an invented count; "列出工作区中的文件" lists them, so the Chinese text is that), and
"Write a Python function that checks whether a number is prime" (it wrote to the workspace
folder itself). They are shown, and sent, in the person's language.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from echo_desk.i18n import N_, _
from echo_desk.ui.core import i18n_qt

EXAMPLES = (
    N_("Create a file hello.txt that says Hello from Echo Desk"),
    N_("Which files are in the workspace?"),
    N_("Explain what a Python list is in one sentence."),
)


class ExamplePrompts(QWidget):
    """Visible while the transcript is empty; ``picked`` carries the prompt in the shown language."""

    picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.buttons = [QPushButton() for _ in EXAMPLES]
        # One under another: side by side, three sentences made the window 1,190 px wide at least.
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.label)
        for button, example in zip(self.buttons, EXAMPLES, strict=True):
            button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            button.clicked.connect(lambda _checked=False, e=example: self.picked.emit(_(e)))
            column.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.label.setText(_("Try:"))
        for button, example in zip(self.buttons, EXAMPLES, strict=True):
            button.setText(_(example))
            button.setToolTip(_("Send this message"))

    def follow(self, model: QAbstractItemModel) -> None:
        """Show only while ``model`` (the transcript) has no rows."""
        def update(*_args: object) -> None:
            self.setVisible(model.rowCount() == 0)

        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(update)
        update()
