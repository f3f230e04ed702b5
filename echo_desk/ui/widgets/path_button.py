"""A push button that shows a folder path elided in the middle to the width it is given.

A long workspace path (``/home/…/Documents/Echo Desk``) as plain button text asked for its full
width and squeezed the window's side panel to a few pixels; elided, the start and the end of the
path stay readable, and the tooltip and the accessible name keep all of it. Where even that is
too wide, the folder's own name is the part kept (``…/project``): in a 900-pixel window the
middle-elided path read "/…n".
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStyle, QStyleOptionButton, QWidget

#: Characters of the path the button asks room for (the rest is elided when space is short).
PREFERRED_CHARS = 48
#: Characters of the folder's own name the button keeps room for, however narrow the window.
LEAST_NAME_CHARS = 16


class PathButton(QPushButton):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self._elide()
        self.updateGeometry()

    def full_text(self) -> str:
        return self._full

    def _room(self) -> int:
        option = QStyleOptionButton()
        self.initStyleOption(option)
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin, option, self)
        return max(0, self.width() - 2 * margin - 8)

    def _name(self) -> str:
        """The folder's own name, the part of a path a person knows it by."""
        return os.path.basename(self._full.rstrip(os.sep)) or self._full

    def _elide(self) -> None:
        metrics, room, name = self.fontMetrics(), self._room(), self._name()
        shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideMiddle, room)
        if shown != self._full and not shown.endswith(os.sep + name):
            # Too narrow for the start and the end: the end, from a separator when it fits.
            shown = metrics.elidedText(self._full, Qt.TextElideMode.ElideLeft, room)
            tail = "…" + os.sep + name
            if metrics.horizontalAdvance(tail) <= room:
                shown = tail
        super().setText(shown or self._full[:1])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def sizeHint(self) -> QSize:
        # From the full text (the shown one is already elided to the present width).
        wanted = self.fontMetrics().horizontalAdvance(self._full[:PREFERRED_CHARS]) + 32
        return QSize(wanted, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        least = "…" + os.sep + self._name()[:LEAST_NAME_CHARS]
        return QSize(self.fontMetrics().horizontalAdvance(least) + 24, super().minimumSizeHint().height())
