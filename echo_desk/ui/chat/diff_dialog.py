"""A read-only window with the whole diff of a finished tool call (from its card)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QVBoxLayout, QWidget

from echo_desk.i18n import _
from echo_desk.tools.results import FileChange
from echo_desk.ui.widgets.diff_view import DiffPane


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
            self.tabs.addTab(pane, os.path.basename(change.path) or change.path)
            self.tabs.setTabToolTip(self.tabs.count() - 1, change.path)
        layout.addWidget(self.tabs, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(_("Close"))
        layout.addWidget(buttons)
