"""The edge of every input field, set once for the whole application from the palette.

Qt (Fusion) draws a field's edge from a shade of the window colour: about 2:1 against white and
all but invisible (1.03:1) on the dark base. ``theme`` installs the style and sets the sheet at
every switch, so every line edit, text box, spin box and editable combo box has the same edge,
``field_border`` (3:1 or more against both ``base`` and ``window``, as WCAG asks of a field's
boundary), and the accent colour while it has the focus. No widget styles its own edge.

Text boxes and line edits get it from an application style sheet (1 px, as wide as Qt's own, so
nothing moves). A spin box or a combo box styled by a sheet loses the arrows Qt draws, so those
keep Qt's drawing and a proxy style draws the edge over it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QApplication,
    QProxyStyle,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionComplex,
    QWidget,
)

from echo_desk.ui.core import palette as palettes
from echo_desk.ui.core.palette import Palette

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
    """Qt's own style, with the palette's field edge drawn over a spin box's or an editable
    combo box's frame (reads the palette in use at every draw, so a theme switch needs nothing)."""

    def drawComplexControl(self, control: QStyle.ComplexControl, option: QStyleOptionComplex,
                           painter: QPainter, widget: QWidget | None = None) -> None:
        super().drawComplexControl(control, option, painter, widget)
        is_spin_box = control == QStyle.ComplexControl.CC_SpinBox
        is_text_combo = (control == QStyle.ComplexControl.CC_ComboBox and isinstance(option, QStyleOptionComboBox)
                         and option.editable)
        if not (is_spin_box or is_text_combo) or not getattr(option, "frame", True):
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(edge_colour(palettes.in_use(), option.state)), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5), 2, 2)
        painter.restore()


def install_field_edge_style(app: QApplication) -> None:
    """Draw spin boxes and editable combo boxes with the field edge (once; it reads the palette in use)."""
    if not isinstance(app.style(), FieldEdgeStyle):
        app.setStyle(FieldEdgeStyle())
