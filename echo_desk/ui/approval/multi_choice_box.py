"""A form field answered with several of its choices: a list of check boxes, and a line saying
how many may be chosen, or why the answer cannot be sent yet."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.multi_choice import MultiChoice
from echo_desk.common.visible_text import visible
from echo_desk.ui.core import theme

#: How many choices show before the list scrolls.
MOST_ROWS_SHOWN = 8


class MultiChoiceBox(QWidget):
    """The choices as checkable rows of a list: the arrow keys move, Space ticks, and a title of
    any length wraps (a check box's own text does neither, and reads ``&`` as a shortcut key)."""

    changed = Signal()

    def __init__(self, choice: MultiChoice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = choice
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = _ChoiceList()
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # No row drawn as selected: a highlighted row read as a chosen one. The current row keeps
        # its focus frame, for the keys; the view draws it only while the list has the focus.
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        for position, title in enumerate(choice.titles):  # titles shown with escapes; values sent
            item = QListWidgetItem(visible(title, one_line=True))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            checked = position in choice.first_chosen
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.setCurrentRow(0)
        self.list.itemChanged.connect(lambda _item: self._update())
        layout.addWidget(self.list)
        self.rule = QLabel()
        self.rule.setTextFormat(Qt.TextFormat.PlainText)
        self.rule.setWordWrap(True)
        self._problem: str | None = None
        theme.styled(self.rule, self._rule_style)
        layout.addWidget(self.rule)
        self._update()

    def _rule_style(self, palette: theme.Palette) -> str:
        return f"color: {palette.danger if self._problem else palette.muted};"

    def positions(self) -> list[int]:
        return [row for row in range(self.list.count())
                if self.list.item(row).checkState() is Qt.CheckState.Checked]

    def values(self) -> list[object]:
        """The chosen values, in the order of the choices."""
        return self.choice.chosen(self.positions())

    @property
    def problem(self) -> str | None:
        """Why the chosen ones cannot be the answer; ``None`` when they can."""
        return self._problem

    def setAccessibleName(self, name: str) -> None:
        super().setAccessibleName(name)
        self.list.setAccessibleName(name)  # what a screen reader names when the list has focus

    def retranslate(self) -> None:
        self._update()

    def _update(self) -> None:
        self._problem = self.choice.problem(len(self.positions()))
        self.rule.setText(self._problem or self.choice.rule())
        self.rule.setVisible(bool(self.rule.text()))
        self.rule.setStyleSheet(self._rule_style(theme.current()))
        self.changed.emit()


class _ChoiceList(QListWidget):
    """As tall as its rows, wrapped at the width it is given, up to ``MOST_ROWS_SHOWN`` of them;
    as wide as the form makes it (sized to its longest title, a 200-character one widened the
    dialog past the screen)."""

    def __init__(self) -> None:
        super().__init__()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        rows = sum(self.sizeHintForRow(row) for row in range(min(self.count(), MOST_ROWS_SHOWN)))
        return QSize(super().sizeHint().width(), rows + 2 * self.frameWidth())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.updateGeometry()  # a new width wraps the titles again: the rows' height changes
