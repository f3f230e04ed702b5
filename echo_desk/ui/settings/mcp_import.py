"""Importing MCP servers from Claude Desktop, Cursor or VS Code, with a preview first.

The preview lists every server of the other client's file: what would be added or changed
(with the exact command line), what is skipped and why, which values go to the keyring.
Nothing is written until "Import selected".
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import N_, _, list_text, shown
from echo_desk.ui.settings.secret_hints import left_in_file

if TYPE_CHECKING:  # the MCP package loads when the page is first opened
    from echo_desk.mcp.importers import ImportItem, ImportPreview

ACTION_LABELS = {"add": N_("Add"), "change": N_("Change"), "same": N_("Already there"), "skip": N_("Skip")}


def describe_item(item: ImportItem) -> str:
    """One line with what the server would run, plus the keyring notes."""
    parts: list[str] = []
    cfg = item.config
    if cfg is not None:
        if cfg.command:
            parts.append(shlex.join((cfg.command, *cfg.args)))
        if cfg.url:
            parts.append(cfg.url)
    if item.reason:
        parts.append(_(shown(item.reason)))  # a fixed phrase (N_), or a reason built as ``deferred``
    if item.to_keyring:
        parts.append(_("to the keyring: {keys}").format(keys=list_text(item.to_keyring)))
    if item.left_in_file:
        parts.append(left_in_file(item.left_in_file))
    if item.needs_secrets:
        parts.append(_("needs secrets first: {keys}").format(keys=list_text(item.needs_secrets)))
    return " — ".join(parts)


class ImportPreviewDialog(QDialog):
    """Non-blocking: ``open()`` it; ``chosen`` carries the selected server names (or nothing)."""

    chosen = Signal(object)

    def __init__(self, preview: ImportPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(_("Import MCP servers"))
        self.resize(900, 420)
        layout = QVBoxLayout(self)
        intro = QLabel(_("From {path} ({kind}). Choose what to import; nothing changes until you press "
                         "Import selected.").format(path=preview.source, kind=preview.source_kind))
        intro.setWordWrap(True)
        intro.setAccessibleName(intro.text())
        layout.addWidget(intro)
        self.items = QTreeWidget()
        self.items.setRootIsDecorated(False)
        self.items.setHeaderLabels([_("Server"), _("Action"), _("Details")])
        self.items.setAccessibleName(_("Servers in the file"))
        for entry in preview.items:
            action = entry.action  # an ImportAction (a StrEnum)
            row = QTreeWidgetItem([entry.name, _(ACTION_LABELS.get(action, action)), describe_item(entry)])
            row.setData(0, Qt.ItemDataRole.UserRole, entry.name)
            row.setToolTip(2, describe_item(entry))
            if action in ("add", "change"):
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                row.setCheckState(0, Qt.CheckState.Checked)
            else:
                row.setFlags(row.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.items.addTopLevelItem(row)
        for column in range(2):
            self.items.resizeColumnToContents(column)
        layout.addWidget(self.items, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.addButton(_("Import selected"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setAccessibleName(_("Import the selected servers"))
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._done = False

    def selected(self) -> set[str]:
        names = set()
        for i in range(self.items.topLevelItemCount()):
            row = self.items.topLevelItem(i)
            checkable = row is not None and bool(row.flags() & Qt.ItemFlag.ItemIsUserCheckable)
            if row is not None and checkable and row.checkState(0) == Qt.CheckState.Checked:
                names.add(str(row.data(0, Qt.ItemDataRole.UserRole)))
        return names

    def _accept(self) -> None:
        if not self._done:
            self._done = True
            self.chosen.emit(self.selected())
        super().accept()

    def reject(self) -> None:
        if not self._done:
            self._done = True
            self.chosen.emit(set())
        super().reject()
