"""Per-hunk choice in the approval dialog: one check box per hunk of a file's change (all on).

The hunks are the engine's (``FileChange.hunks``: the ones the tool will apply, with stable ids
and their place in the diff); the picker never looks for ``@@`` lines in the diff text, which a
file name can forge. Keys in the list: ``j``/``k`` next/previous hunk, ``space`` toggles, ``a``
all, ``n`` none. The current hunk is scrolled into view in the diff. The picker only reports the
ids of the checked hunks; the engine decides whether that selection fits what was shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.tools import DiffHunk
from echo_desk.ui.widgets.diff_view import DiffPane

#: How much of a hunk's first changed line its row shows.
_LABEL_CHARS = 80


def hunk_label(number: int, hunk: DiffHunk) -> str:
    """``3. @@ -18,7 +18,7 @@  +twenty`` — its number, its ranges and its first changed line, on one line."""
    first = visible(hunk.first_change, one_line=True)
    if len(first) > _LABEL_CHARS:
        first = first[:_LABEL_CHARS] + "…"
    return f"{number}. {visible(hunk.header, one_line=True)}  {first}".rstrip()


class HunkPicker(QListWidget):
    changed = Signal()

    def __init__(self, pane: DiffPane, hunks: Sequence[DiffHunk], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pane = pane
        self._hunks = tuple(hunks)
        self.setUniformItemSizes(True)  # 500 hunks lay out at once
        for number, hunk in enumerate(self._hunks, start=1):
            item = QListWidgetItem(hunk_label(number, hunk))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.addItem(item)
        # Room for a few hunks; more scroll (the diff below keeps the space).
        row = self.sizeHintForRow(0) if self.count() else 0
        self.setMaximumHeight(min(max(self.count(), 1), 5) * row + 2 * self.frameWidth() + 4)
        self.setAccessibleName(_("Hunks to write (j/k move, space toggles, a all, n none)"))
        self.currentRowChanged.connect(self._show_hunk)
        self._declined: set[int] = set()
        self.itemChanged.connect(self._item_changed)

    @property
    def hunks(self) -> tuple[DiffHunk, ...]:
        return self._hunks

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

    def chosen(self) -> tuple[str, ...]:
        """Ids of the checked hunks, in diff order."""
        return tuple(self._hunks[i].id for i in range(self.count())
                     if self.item(i).checkState() == Qt.CheckState.Checked)

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
        if not 0 <= index < len(self._hunks):
            return
        view = self._pane.unified
        block = view.document().findBlockByNumber(self._hunks[index].first_line)
        if block.isValid():
            view.setTextCursor(QTextCursor(block))
            view.centerCursor()


def add_hunk_picker(pane: DiffPane, hunks: Sequence[DiffHunk]) -> HunkPicker:
    """A picker for ``hunks`` (the change ``pane`` shows), placed between its toolbar and its diff."""
    picker = HunkPicker(pane, hunks)
    layout = pane.layout()
    assert isinstance(layout, QVBoxLayout)
    layout.insertWidget(layout.indexOf(pane.stack), picker)
    return picker


def chosen_hunks(pickers: Mapping[str, HunkPicker]) -> dict[str, tuple[str, ...]] | None:
    """The selection for the approval: ``None`` when every hunk of every file is kept (the
    change as shown), else every file's kept hunk ids (a file with none kept is not touched)."""
    if all(p.all_chosen for p in pickers.values()):
        return None
    return {path: picker.chosen() for path, picker in pickers.items()}
