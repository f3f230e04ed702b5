"""The find bar over the transcript (Ctrl+F): type to find, Enter / F3 next, Shift+Enter /
Shift+F3 previous, the count of matches, Escape closes and clears the highlights."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from echo_desk.i18n import _
from echo_desk.ui.chat.transcript_find import TranscriptFinder
from echo_desk.ui.core import i18n_qt

if TYPE_CHECKING:
    from echo_desk.ui.chat.transcript_view import TranscriptView


class FindBar(QWidget):
    """Hidden until ``open_find``; finds in ``view``'s transcript and follows its changes."""

    DELAY_MS = 120

    def __init__(self, view: TranscriptView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.finder = TranscriptFinder(view)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 2)
        self.field = QLineEdit()
        self.field.setClearButtonEnabled(True)
        self.count = QLabel()
        self.previous = QToolButton()
        self.next = QToolButton()
        self.close_button = QToolButton()
        self.previous.setText("↑")
        self.next.setText("↓")
        self.close_button.setText("✕")
        for button in (self.previous, self.next, self.close_button):
            button.setAutoRaise(True)
        self.previous.clicked.connect(lambda: self.step(False))
        self.next.clicked.connect(lambda: self.step(True))
        self.close_button.clicked.connect(self.close_find)
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        row.addWidget(self.previous)
        row.addWidget(self.next)
        row.addWidget(self.close_button)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.DELAY_MS)
        self._timer.timeout.connect(self.refresh)
        self.field.textChanged.connect(lambda _t: self._timer.start())
        self.field.installEventFilter(self)
        # The transcript changes while open (a reply streams in, another conversation opens).
        self._watched: QObject | None = None
        self._watch_model()
        self.setVisible(False)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.field.setPlaceholderText(_("Find in this conversation"))
        self.field.setAccessibleName(_("Find in this conversation"))
        self.previous.setToolTip(_("Previous match (Shift+Enter)"))
        self.previous.setAccessibleName(_("Previous match"))
        self.next.setToolTip(_("Next match (Enter)"))
        self.next.setAccessibleName(_("Next match"))
        self.close_button.setToolTip(_("Close (Esc)"))
        self.close_button.setAccessibleName(_("Close the find bar"))
        self._show_count()

    def _watch_model(self) -> None:
        model = self.view.model()
        if model is None or model is self._watched:
            return
        for signal in (model.modelReset, model.rowsInserted, model.dataChanged):
            signal.connect(self._on_transcript_changed)
        self._watched = model

    def _on_transcript_changed(self, *_args: object) -> None:
        if self.isVisible() and self.field.text():
            self._timer.start()

    def open_find(self, text: str | None = None, near_row: int = -1) -> None:
        """Show the bar with the focus in it (``text``, when given, is searched at once, its
        current match the first at or after ``near_row``)."""
        self._watch_model()
        self.setVisible(True)
        if text is not None:
            self.field.setText(text)
            self.refresh(near_row)
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def close_find(self) -> None:
        """Hide the bar, clear the highlights, give the focus back to the transcript."""
        self._timer.stop()
        self.finder.clear()
        self._show_count()
        self.setVisible(False)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def refresh(self, near_row: int = -1) -> None:
        """Find the field's text again (the current match stays near where it was)."""
        self._timer.stop()
        if near_row < 0 and 0 <= self.finder.index < len(self.finder.matches):
            near_row = self.finder.matches[self.finder.index].row
        self.finder.search(self.field.text(), near_row)
        self._show_count()

    def step(self, forward: bool = True) -> None:
        if self._timer.isActive() or self.finder.delegate.term != self.field.text():
            self.refresh()  # typed just now: the first match is the step
            return
        self.finder.step(forward)
        self._show_count()

    def _show_count(self) -> None:
        total = len(self.finder.matches)
        if not self.field.text():
            self.count.setText("")
        elif total == 0:
            self.count.setText(_("No matches"))
        else:
            self.count.setText(_("{current} of {total}").format(current=self.finder.index + 1, total=total))
        self.count.setAccessibleName(self.count.text())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.step(not event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                return True
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Escape anywhere in the bar (the field and buttons pass it on) closes it.
        if event.key() == Qt.Key.Key_Escape:
            self.close_find()
            return
        super().keyPressEvent(event)
