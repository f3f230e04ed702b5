"""Per-hunk choice in the approval dialog: one check box per hunk of a file's diff (all on).

Keys in the list: ``j``/``k`` next/previous hunk, ``space`` toggles, ``a`` all, ``n`` none.
The current hunk is scrolled into view in the diff. The picker only reports which hunks are
checked; the engine decides whether that selection fits what was shown and writes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from echo_desk.i18n import _
from echo_desk.ui.widgets.diff_view import DiffPane
from echo_desk.ui.widgets.diffparse import HUNK


class HunkPicker(QListWidget):
    changed = Signal()

    def __init__(self, pane: DiffPane, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pane = pane
        self._rows: list[int] = []
        self._seen_lines = 0
        self.setUniformItemSizes(True)  # 500 hunks lay out at once
        self._add_new_hunks()
        # The diff is parsed a slice at a time: hunks join the list as they are read (Allow
        # waits for the whole diff, so the list is complete before anything can be approved).
        pane.grew.connect(self._add_new_hunks)
        self.setAccessibleName(_("Hunks to write (j/k move, space toggles, a all, n none)"))
        self.currentRowChanged.connect(self._show_hunk)
        self._declined: set[int] = set()
        self.itemChanged.connect(self._item_changed)

    def _add_new_hunks(self) -> None:
        parsed = self._pane.parsed
        start, self._seen_lines = self._seen_lines, len(parsed)
        new_rows = [i for i in range(start, len(parsed)) if parsed.kinds[i] == HUNK]
        for number, row in enumerate(new_rows, start=len(self._rows) + 1):
            item = QListWidgetItem(f"{number}. {parsed.lines[row]}")
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.blockSignals(True)  # a new hunk is not a change of the person's choice
            self.addItem(item)
            self.blockSignals(False)
        self._rows.extend(new_rows)
        # Room for a few hunks; more scroll (the diff below keeps the space).
        row = self.sizeHintForRow(0) if self.count() else 0
        self.setMaximumHeight(min(max(self.count(), 1), 5) * row + 2 * self.frameWidth() + 4)

    def _item_changed(self, item: QListWidgetItem) -> None:
        # What is unchecked is greyed out in the diff itself, in both views (one hunk at a time:
        # a toggle among 500 hunks stays cheap).
        index = self.row(item)
        if item.checkState() == Qt.CheckState.Checked:
            self._declined.discard(index)
        else:
            self._declined.add(index)
        self._pane.set_declined(frozenset(self._declined))
        self.changed.emit()

    def chosen(self) -> tuple[int, ...]:
        """Indices of the checked hunks."""
        return tuple(i for i in range(self.count()) if self.item(i).checkState() == Qt.CheckState.Checked)

    @property
    def all_chosen(self) -> bool:
        return len(self.chosen()) == self.count()

    def set_all(self, on: bool) -> None:
        state = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        self.blockSignals(True)
        try:
            for i in range(self.count()):
                self.item(i).setCheckState(state)
        finally:
            self.blockSignals(False)
        self._declined = set() if on else set(range(self.count()))
        self._pane.set_declined(frozenset(self._declined))
        self.changed.emit()

    def toggle(self, index: int) -> None:
        item = self.item(index)
        if item is not None:
            on = item.checkState() == Qt.CheckState.Checked
            item.setCheckState(Qt.CheckState.Unchecked if on else Qt.CheckState.Checked)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_J:
            self.setCurrentRow(min(self.count() - 1, self.currentRow() + 1))
        elif key == Qt.Key.Key_K:
            self.setCurrentRow(max(0, self.currentRow() - 1))
        elif key == Qt.Key.Key_Space:
            self.toggle(max(0, self.currentRow()))
        elif key == Qt.Key.Key_A:
            self.set_all(True)
        elif key == Qt.Key.Key_N:
            self.set_all(False)
        else:
            super().keyPressEvent(event)

    def _show_hunk(self, index: int) -> None:
        if not 0 <= index < len(self._rows):
            return
        view = self._pane.unified
        block = view.document().findBlockByNumber(self._rows[index])
        if block.isValid():
            view.setTextCursor(QTextCursor(block))
            view.centerCursor()


def add_hunk_picker(pane: DiffPane) -> HunkPicker:
    """A picker for ``pane``'s hunks, placed between its toolbar and its diff."""
    picker = HunkPicker(pane)
    layout = pane.layout()
    assert isinstance(layout, QVBoxLayout)
    layout.insertWidget(layout.indexOf(pane.stack), picker)
    return picker


def chosen_hunks(pickers: Mapping[str, HunkPicker]) -> dict[str, tuple[int, ...]] | None:
    """The selection for the approval: ``None`` when every hunk of every file is kept (the
    change as shown), else every file's kept hunks (a file with none kept is not touched)."""
    if all(p.all_chosen for p in pickers.values()):
        return None
    return {path: picker.chosen() for path, picker in pickers.items()}
