"""The box a start-up notice shows (what was put aside at the last quit, what was checked after a
restart): a warning that does not block the window behind, its paths selectable, kept at a
reading width."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

#: The notice is at least this many average characters wide: Qt sizes a message box to its
#: longest unbreakable word, and Chinese breaks between any two characters (a tall narrow column).
LEAST_WIDTH_CHARS = 80


def start_notice_box(title: str, text: str, details: str, parent: QWidget | None) -> QMessageBox:
    """``text`` and ``details`` are plain text (paths and server names in them are untrusted)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setInformativeText(details)
    _hold_width(box)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # the paths can be copied
    box.setWindowModality(Qt.WindowModality.NonModal)  # the window behind stays usable
    return box


def _hold_width(box: QMessageBox) -> None:
    """Keep both texts at ``LEAST_WIDTH_CHARS`` (never over three quarters of the screen)."""
    screen = box.screen() or QGuiApplication.primaryScreen()
    widest = screen.availableGeometry().width() * 3 // 4 if screen is not None else 10_000
    for name in ("qt_msgbox_label", "qt_msgbox_informativelabel"):  # Qt's names for the two texts
        if (label := box.findChild(QLabel, name)) is not None:
            label.setMinimumWidth(min(LEAST_WIDTH_CHARS * label.fontMetrics().averageCharWidth(), widest))
