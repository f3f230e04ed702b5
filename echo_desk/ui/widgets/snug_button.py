"""A push button that, short of room, shrinks to its text instead of stopping at 80 px.

Fusion gives every push button with text at least 80 px, however short the text. The
conversation list's three buttons (New, Rename, Delete) side by side so asked 252 px whatever the
language or the font, and with a larger font the window could no longer go down to 900 px. With
room to spare the button is as wide as Qt's; it never gets narrower than its whole text, so
nothing is cut.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStyle, QStyleOptionButton, QWidget


class SnugButton(QPushButton):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Preferred, not Qt's Minimum: the layout may give it less than its size hint.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def minimumSizeHint(self) -> QSize:
        option = QStyleOptionButton()
        self.initStyleOption(option)
        text = self.fontMetrics().size(0, self.text())
        # The style's margins and frame around the text, asked without the text: with it, the
        # style answers its 80 px floor.
        option.text = ""
        around = self.style().sizeFromContents(QStyle.ContentsType.CT_PushButton, option, text, self)
        return QSize(around.width(), super().minimumSizeHint().height())
