"""A read-only window with the whole diff of a finished tool call (from its card)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible_path
from echo_desk.i18n import _
from echo_desk.tools.results import FileChange
from echo_desk.ui.core.mnemonics import literal
from echo_desk.ui.widgets.diff_view import DiffPane
from echo_desk.ui.widgets.full_text_box import plain_tooltip


class DiffDialog(QDialog):
    def __init__(self, title: str, changes: Sequence[FileChange], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(_("Changes made by {tool}").format(tool=title))
        self.resize(960, 680)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(_("File changes"))
        for change in changes:
            pane = DiffPane(change.diff, truncated=change.truncated)
            # A file's name as it is: "&" in a tab is an Alt letter, a control character draws nothing.
            self.tabs.addTab(pane, literal(visible_path(os.path.basename(change.path) or change.path)))
            self.tabs.setTabToolTip(self.tabs.count() - 1, plain_tooltip(change.path))
        layout.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(_("Close"))
        layout.addWidget(buttons)
