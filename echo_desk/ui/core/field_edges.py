"""The edge of every input field, set once for the whole application from the palette.

Qt (Fusion) draws a field's edge from a shade of the window colour: about 2:1 against white and
all but invisible (1.03:1) on the dark base. ``theme`` installs the style and sets the sheet at
every switch, so every line edit, text box, spin box, combo box, list, check box and radio button
has the same edge,
``field_border`` (3:1 or more against both ``base`` and ``window``, as WCAG asks of a field's
boundary), and the accent colour while it has the focus. No widget styles its own edge.

Text boxes and line edits get it from an application style sheet (1 px, as wide as Qt's own, so
nothing moves). A spin box or a combo box styled by a sheet loses the arrows Qt draws, so those
keep Qt's drawing and a proxy style draws the edge over it. The same proxy draws it over every
combo box (pick-only ones too) and the frame of a list, tree or table, and draws check boxes and
radio buttons whole: the box, the ring, and the mark in the text colour (Qt's box was a black
square on the dark base, 1.1:1, and 1.7:1 on the light one). Under the pointer their edge takes the
accent and their inside a tint of it, deeper while pressed; switched off, all of it is quieter.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionComboBox,
    QStyleOptionComplex,
    QStyleOptionFrame,
    QWidget,
)

from echo_desk.ui.core import palette as palettes
from echo_desk.ui.core.palette import Palette, tint

#: The widgets that take typed text and whose edge the style sheet draws.
SHEET_FIELDS = ("QLineEdit", "QPlainTextEdit", "QTextEdit")


def _each(suffix: str = "") -> str:
    return ", ".join(kind + suffix for kind in SHEET_FIELDS)  # not prose: a style sheet selector list


def field_style_sheet(p: Palette) -> str:
    """The application style sheet for ``p``."""
    return "\n".join((
        f"{_each()} {{ border: 1px solid {p.field_border}; background: {p.base}; }}",
        # Qt's line edit is 2 px taller than its text plus a 1 px edge: the padding keeps its height.
        "QLineEdit { border-radius: 2px; padding: 2px 0; }",
        f"{_each(':focus')} {{ border-color: {p.accent}; }}",
        # Switched off (WCAG asks no contrast of an inactive field): the quieter edge says so.
        f"{_each(':disabled')} {{ border-color: {p.border}; }}",
        # What asked for no frame keeps none: a delegate's editor, a flat text view.
        'QLineEdit[frame="false"] { border: none; padding: 0; }',
        'QPlainTextEdit[frameShape="0"], QTextEdit[frameShape="0"] { border: none; }',
        # The line edit inside a spin box or an editable combo box: its owner draws the edge.
        "QAbstractSpinBox QLineEdit, QComboBox QLineEdit { border: none; padding: 0; background: transparent; }",
    ))


def edge_colour(p: Palette, state: QStyle.StateFlag) -> str:
    """The edge of a field in ``state``: the accent with the focus, quieter switched off."""
    if not state & QStyle.StateFlag.State_Enabled:
        return p.border
    return p.accent if state & QStyle.StateFlag.State_HasFocus else p.field_border


class FieldEdgeStyle(QProxyStyle):
    """Qt's own style, with the palette's field edge drawn over the frame of a spin box, a combo
    box, a list, tree or table, and over a check box's box and a radio button's ring (reads the
    palette in use at every draw, so a theme switch needs nothing)."""

    def drawComplexControl(self, control: QStyle.ComplexControl, option: QStyleOptionComplex,
                           painter: QPainter, widget: QWidget | None = None) -> None:
        super().drawComplexControl(control, option, painter, widget)
        is_spin_box = control == QStyle.ComplexControl.CC_SpinBox
        is_combo = control == QStyle.ComplexControl.CC_ComboBox and isinstance(option, QStyleOptionComboBox)
        if (is_spin_box or is_combo) and getattr(option, "frame", True):
            _draw_edge(painter, QRectF(option.rect), option.state, radius=2)

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                      widget: QWidget | None = None) -> None:
        # Drawn whole, not over Qt's: Qt fills a checked radio button with a light grey (2.8:1
        # against the edge) and blurs a ring's edge; the mark is the text colour (15:1 or more).
        if element == QStyle.PrimitiveElement.PE_IndicatorCheckBox:
            _draw_check_box(painter, QRectF(option.rect), option.state)
        elif element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
            _draw_radio_button(painter, QRectF(option.rect), option.state)
        else:
            super().drawPrimitive(element, option, painter, widget)

    def drawControl(self, element: QStyle.ControlElement, option: QStyleOption, painter: QPainter,
                    widget: QWidget | None = None) -> None:
        super().drawControl(element, option, painter, widget)
        if (element == QStyle.ControlElement.CE_ShapedFrame and isinstance(widget, QAbstractItemView)
                and isinstance(option, QStyleOptionFrame) and option.frameShape == QFrame.Shape.StyledPanel):
            # Without the focus colour: a view repaints its inside, not its frame, when the focus moves.
            state = option.state & ~QStyle.StateFlag.State_HasFocus
            _draw_edge(painter, QRectF(option.rect), state, radius=0)


def _draw_edge(painter: QPainter, rect: QRectF, state: QStyle.StateFlag, *, radius: float = 0) -> None:
    """A 1 px edge just inside ``rect`` in the colour for ``state`` (``edge_colour``)."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor(edge_colour(palettes.in_use(), state)), 1))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), radius, radius)
    painter.restore()


#: How much of the accent tints a check box's or a radio button's inside under the pointer and
#: while pressed: the edge (the accent) stays 3:1 or more against it, the mark 10:1, in both themes.
HOVER_TINT = 0.12
PRESSED_TINT = 0.3


def indicator_colours(p: Palette, state: QStyle.StateFlag) -> tuple[str, str, str]:
    """The edge, the inside and the mark of a check box or a radio button in ``state``: Qt's
    own show the pointer and the press, so these do too (the accent, and a tint of it inside)."""
    flag = QStyle.StateFlag
    if not state & flag.State_Enabled:
        return p.border, p.window, p.faint
    if state & flag.State_Sunken:
        return p.accent, tint(p.accent, p.base, PRESSED_TINT), p.text
    if state & flag.State_MouseOver:
        return p.accent, tint(p.accent, p.base, HOVER_TINT), p.text
    return edge_colour(p, state), p.base, p.text


def _draw_check_box(painter: QPainter, rect: QRectF, state: QStyle.StateFlag) -> None:
    edge, inside, mark_colour = indicator_colours(palettes.in_use(), state)
    mark = QColor(mark_colour)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.fillRect(rect, QColor(inside))
    painter.setPen(QPen(QColor(edge), 1))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 2, 2)
    painter.setPen(QPen(mark, max(1.5, rect.width() / 8), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
                        Qt.PenJoinStyle.RoundJoin))
    w, h, x, y = rect.width(), rect.height(), rect.left(), rect.top()
    if state & QStyle.StateFlag.State_NoChange:  # partly checked: a bar
        painter.drawLine(QPointF(x + 0.28 * w, y + 0.5 * h), QPointF(x + 0.72 * w, y + 0.5 * h))
    elif state & QStyle.StateFlag.State_On:
        painter.drawPolyline([QPointF(x + 0.24 * w, y + 0.52 * h), QPointF(x + 0.42 * w, y + 0.72 * h),
                              QPointF(x + 0.76 * w, y + 0.30 * h)])
    painter.restore()


def _draw_radio_button(painter: QPainter, rect: QRectF, state: QStyle.StateFlag) -> None:
    edge, inside, mark_colour = indicator_colours(palettes.in_use(), state)
    mark = QColor(mark_colour)
    side = min(rect.width(), rect.height())
    ring = QRectF(0, 0, side, side)
    ring.moveCenter(rect.center())
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    # 1.5 px: a 1 px ring, smoothed, is a paler grey than the edge colour where it curves.
    painter.setPen(QPen(QColor(edge), 1.5))
    painter.setBrush(QColor(inside))
    painter.drawEllipse(ring.adjusted(0.75, 0.75, -0.75, -0.75))
    if state & QStyle.StateFlag.State_On:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(mark)
        dot = side * 0.22
        painter.drawEllipse(ring.center(), dot, dot)
    painter.restore()


def install_field_edge_style(app: QApplication) -> None:
    """Draw spin boxes, combo boxes, item views, check boxes and radio buttons with the field edge
    (once: it reads the palette in use)."""
    # Not ``app.style()``: with a style sheet set, that is the sheet's style, which wraps this one
    # and becomes its parent. Asked that, every switch installed another, and windows opened after
    # a few switches were drawn with Qt's plain frames.
    if not app.findChildren(FieldEdgeStyle):
        app.setStyle(FieldEdgeStyle())
