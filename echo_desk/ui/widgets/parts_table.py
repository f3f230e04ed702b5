"""The table of how each part of a call was checked: one row per collected sub-command (or path,
URL, call) with its verdict and what decided it, worded from the engine's ``Part``s.

Shared by the approval dialog's rules panel and the Permissions page's policy tester.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from echo_desk.agent.permissions import Part, PartKind
from echo_desk.common.visible_text import visible, visible_path
from echo_desk.i18n import _
from echo_desk.ui.core.rules_text import part_reason, plain_tooltip, verdict_colour, verdict_label


class PartsTable(QTreeWidget):
    """One row per collected sub-command (or path, URL, call): its text, verdict and what
    decided it. Shared by the approval dialog and the Permissions page's tester."""

    def __init__(self, parent: QWidget | None = None, *, fit_rows: bool = True) -> None:
        super().__init__(parent)
        #: As tall as its rows (the dialog); otherwise it takes the room it is given (the tester).
        self.fit_rows = fit_rows
        self.setColumnCount(3)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self._parts: tuple[Part, ...] = ()
        self.retranslate()

    def show_parts(self, parts: tuple[Part, ...]) -> None:
        self.clear()
        self._parts = parts
        for part in parts:
            # Item text is never rich text; a line feed (in a file name, a here-document) is ⟨LF⟩,
            # and a path's name ending in a space shows it ("notes.txt⟨U+0020⟩").
            text = visible_path(part.text) if part.kind == PartKind.PATH else visible(part.text, one_line=True)
            item = QTreeWidgetItem([text, "", ""])
            item.setToolTip(0, plain_tooltip(text))
            item.setForeground(1, QBrush(QColor(verdict_colour(part.effect))))
            self.addTopLevelItem(item)
        rows = max(1, min(5, len(parts)))
        if self.fit_rows:
            self.setFixedHeight(max(self.sizeHintForRow(0), 20) * rows + self.header().sizeHint().height() + 8)
        self.retranslate()

    def retranslate(self, *_args: object) -> None:
        self.setHeaderLabels([_("Part"), _("Verdict"), _("Decided by")])
        self.setAccessibleName(_("How each part of this call was checked"))
        for i, part in enumerate(self._parts):
            item = self.topLevelItem(i)
            if item is None:
                continue
            item.setText(1, verdict_label(part.effect))
            item.setText(2, part_reason(part))
            item.setToolTip(2, plain_tooltip(part.provenance.rule.source.describe() if part.provenance.rule else ""))
        for column, width in ((0, 260), (1, 90)):
            self.setColumnWidth(column, width)
