"""A pick-only combo box as wide as its longest item (within its maximum width) that elides its
current text to the width its layout gives it.

Qt draws a combo box's text cut at the arrow: in a 900-pixel window the model picker read
"Local (built-in) · qw". Elided, it ends in "…", and its tooltip keeps all of it (a screen reader
reads the whole current text either way). Qt's own "as wide as the contents" resizes the box to
its longest item 20 ms after the items change, whatever its layout says: the model picker lay
over the "Workspace:" label beside it until the layout next ran. This one only asks for the room.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

#: Pixels Qt keeps between the icon and the text, and at each end of the text (``QCommonStyle``).
_ICON_GAP = 4
_TEXT_MARGIN = 1


class ElidedComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.currentTextChanged.connect(self.setToolTip)
        model = self.model()
        for changed in (model.rowsInserted, model.rowsRemoved, model.dataChanged, model.modelReset):
            changed.connect(self.updateGeometry)  # the longest item may have changed

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()  # room for ``minimumContentsLength`` characters
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        wanted = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, self._option(),
                                               QSize(widest, hint.height()), self)
        return QSize(max(hint.width(), wanted.width()), hint.height())

    def shown_text(self) -> str:
        """The current text as drawn at the present width."""
        return self._elided(self._option())

    def _option(self) -> QStyleOptionComboBox:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return option

    def _elided(self, option: QStyleOptionComboBox) -> str:
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        room = field.width() - 2 * _TEXT_MARGIN
        if not option.currentIcon.isNull():
            room -= option.iconSize.width() + _ICON_GAP
        return self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideRight, max(0, room))

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.isEditable():  # the line edit inside shows (and scrolls) the text
            super().paintEvent(event)
            return
        # As ``QComboBox.paintEvent`` does, with the text elided.
        painter = QStylePainter(self)
        option = self._option()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self._elided(option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
