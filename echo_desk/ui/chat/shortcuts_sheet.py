"""The keyboard shortcuts sheet (Ctrl+/): every shortcut, grouped by where it works."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import _
from echo_desk.ui.chat.window_shortcuts import sheet, sheet_keys
from echo_desk.ui.core import i18n_qt


class ShortcutsSheet(QDialog):
    """Non-modal; Escape or Close closes it. Redrawn when the language changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.resize(640, 620)
        layout = QVBoxLayout(self)
        self.table = QTreeWidget()
        self.table.setColumnCount(2)
        self.table.setRootIsDecorated(False)
        self.table.setItemsExpandable(False)
        self.table.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a sheet to read: Close keeps the focus
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.header().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Keyboard shortcuts"))
        self.table.setAccessibleName(_("Keyboard shortcuts"))
        self.table.setHeaderLabels([_("Keys"), _("Action")])
        self.table.clear()
        for where, shortcuts in sheet():
            group = QTreeWidgetItem([_(where), ""])
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.addTopLevelItem(group)
            for shortcut in shortcuts:
                row = QTreeWidgetItem([sheet_keys(shortcut), _(shortcut.what)])
                self.table.addTopLevelItem(row)
        self.table.resizeColumnToContents(0)

    def rows(self) -> list[tuple[str, str]]:
        """What the sheet shows: (keys, action) per line, group headings with empty keys' column."""
        items = (self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount()))
        return [(item.text(0), item.text(1)) for item in items if item is not None]
