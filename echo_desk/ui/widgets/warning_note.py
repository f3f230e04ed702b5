"""A warning line in the danger colours (hidden characters, what Revert cannot undo, why a call
is asked, a log that cannot be written): plain text, wrapped, restyled on a theme switch."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from echo_desk.ui.core import theme


def warning_note(*, shown: bool, parent: QWidget | None = None) -> QLabel:
    """An empty note, shown only when ``shown`` (its text is set where the words are made)."""
    note = QLabel(parent)
    note.setWordWrap(True)
    note.setTextFormat(Qt.TextFormat.PlainText)  # never markup: the text quotes paths and commands
    theme.styled(note, lambda p: f"color: {p.danger_text}; background: {p.danger_bg}; padding: 4px;")
    note.setVisible(shown)
    return note
