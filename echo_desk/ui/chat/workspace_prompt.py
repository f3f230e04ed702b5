"""Asked in the window when a message is sent with no workspace: which folder the agent works in.

Shown instead of sending (the message stays in the composer, nothing is lost): the default
workspace (``store.first_workspace``) is proposed first, then the recent folders, and another
folder can be chosen. Choosing one emits ``chosen``; the window then sets it and sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from echo_desk.i18n import _
from echo_desk.ui.core import i18n_qt, theme

if TYPE_CHECKING:
    from echo_desk.store.first_workspace import DefaultWorkspace

#: Recent folders offered beside the default.
RECENT_SHOWN = 3


class WorkspacePrompt(QFrame):
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspacePrompt")
        theme.styled(self, lambda p: f"#workspacePrompt {{ background: {p.user_bubble}; "
                                     f"border: 1px solid {p.user_border}; border-radius: 6px; }}")
        self.default: DefaultWorkspace | None = None
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.question.setStyleSheet("font-weight: 600")
        self.use_default = QPushButton()
        self.use_default.clicked.connect(self._use_default)
        self.choose = QPushButton()
        self.choose.clicked.connect(self._choose)
        self.recent_row = QHBoxLayout()
        self.recent_label = QLabel()
        self.recent_row.addWidget(self.recent_label)
        self.recent_buttons: list[QPushButton] = []
        buttons = QHBoxLayout()
        buttons.addWidget(self.use_default)
        buttons.addWidget(self.choose)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.question)
        layout.addLayout(buttons)
        self.recent_row.addStretch(1)
        layout.addLayout(self.recent_row)
        self.setVisible(False)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.question.setText(_("Which folder should the agent work in? Your message is kept and sent "
                                "once you choose."))
        self.choose.setText(_("Choose another folder…"))
        self.recent_label.setText(_("Recent:"))
        self.setAccessibleName(_("Choose the workspace folder"))
        if self.default is not None:
            from echo_desk.store.first_workspace import WorkspaceOrigin  # offered only after the first frame

            where = {
                WorkspaceOrigin.START_FOLDER: _("the folder Echo Desk was started from"),
                WorkspaceOrigin.DOCUMENTS: _("a new folder in your Documents"),
            }[self.default.origin]
            self.use_default.setText(_("Use {path}").format(path=self.default.path))
            self.use_default.setToolTip(where)

    def offer(self, default: DefaultWorkspace, recent: Sequence[str] = ()) -> None:
        """Show the question with ``default`` proposed (and focused) and up to three recent folders."""
        self.default = default
        for button in self.recent_buttons:
            button.deleteLater()
        self.recent_buttons = []
        for folder in [f for f in recent if f and f != str(default.path)][:RECENT_SHOWN]:
            button = QPushButton(folder)
            button.setFlat(True)
            button.clicked.connect(lambda _checked=False, f=folder: self._pick(f))
            self.recent_row.insertWidget(self.recent_row.count() - 1, button)
            self.recent_buttons.append(button)
        self.recent_label.setVisible(bool(self.recent_buttons))
        self.retranslate()
        self.setVisible(True)
        self.use_default.setFocus(Qt.FocusReason.OtherFocusReason)

    def _use_default(self) -> None:
        if self.default is not None:
            from echo_desk.store.first_workspace import ensure

            self._pick(str(ensure(self.default)))  # created on first use

    def _choose(self) -> None:
        dialog = QFileDialog(self, _("Choose the workspace folder"))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self._pick)
        dialog.open()

    def _pick(self, folder: str) -> None:
        if folder:
            self.setVisible(False)
            self.chosen.emit(folder)
