"""The agent's task list (``update_todos``) as a live checklist beside the transcript."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from echo_desk.i18n import _, aside
from echo_desk.tools.host import TodoItem, TodoStatus
from echo_desk.ui.core import i18n_qt, theme

#: The panel is never narrower than this many characters: its hint reads as a sentence.
LEAST_WIDTH_CHARS = 18
_MARKS = {TodoStatus.DONE: "☑", TodoStatus.IN_PROGRESS: "◐", TodoStatus.PENDING: "☐"}


class TodoPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.todos: tuple[TodoItem, ...] = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel()
        font = self.caption.font()
        font.setBold(True)
        self.caption.setFont(font)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        theme.styled(self.empty, lambda p: f"color: {p.muted}")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.caption)
        # In a narrow window the splitter gave the panel what was left, a column one word wide.
        self.setMinimumWidth(LEAST_WIDTH_CHARS * self.fontMetrics().averageCharWidth())
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty, 1)
        self.retranslate()
        self.set_todos(())
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.caption.setText(_("Tasks"))
        self.list.setAccessibleName(_("The agent's task list"))
        self.empty.setText(_("The agent's task list appears here when it plans a multi-step job."))
        self._fill()

    def set_todos(self, todos: Sequence[TodoItem]) -> None:
        self.todos = tuple(todos)
        self._fill()

    def _fill(self) -> None:
        self.list.clear()
        states = {TodoStatus.DONE: _("done"), TodoStatus.IN_PROGRESS: _("in progress"),
                  TodoStatus.PENDING: _("to do")}
        for todo in self.todos:
            item = QListWidgetItem(f"{_MARKS[todo.status]} {todo.text}")
            item.setData(Qt.ItemDataRole.AccessibleTextRole, aside(todo.text, states[todo.status]))
            if todo.status is TodoStatus.DONE:
                font = QFont(self.list.font())
                font.setStrikeOut(True)
                item.setFont(font)
                item.setForeground(Qt.GlobalColor.darkGray)
            elif todo.status is TodoStatus.IN_PROGRESS:
                font = QFont(self.list.font())
                font.setBold(True)
                item.setFont(font)
            self.list.addItem(item)
        self.list.setVisible(bool(self.todos))
        self.empty.setVisible(not self.todos)
