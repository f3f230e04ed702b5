"""Check boxes and radio buttons stand out in both themes: their box or ring 3:1 or more against
the window around them and the inside they enclose, their mark 3:1 or more against that inside
(WCAG 2.1, 1.4.11), measured on the drawn pixels. Before, Qt drew the box from a shade of the
window colour: on the dark theme the approval dialog's "side by side" box was a black square
(1.1:1), on the light theme 1.9:1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QRadioButton,
    QStyle,
    QStyleOptionButton,
    QWidget,
)

from echo_desk.ui.core import theme
from echo_desk.ui.core.field_edges import FieldEdgeStyle
from echo_desk.ui.core.palette import contrast

#: WCAG 2.1, 1.4.11: a control's boundary and its state against what is next to them.
LEAST_CONTRAST = 3.0


@pytest.fixture(autouse=True)
def _light_again(qapp: QApplication) -> Iterator[None]:
    yield
    theme.apply_theme("light")


def _indicator(button: QAbstractButton) -> QRect:
    option = QStyleOptionButton()
    button.initStyleOption(option)  # type: ignore[attr-defined]
    element = (QStyle.SubElement.SE_CheckBoxIndicator if isinstance(button, QCheckBox)
               else QStyle.SubElement.SE_RadioButtonIndicator)
    return button.style().subElementRect(element, option, button)


def _colour(image: QImage, x: int, y: int) -> str:
    return image.pixelColor(x, y).name()


def _mark_contrast(image: QImage, box: QRect, inside: str) -> float:
    """The strongest contrast of a pixel well inside the box against the box's inside colour."""
    pixels = [_colour(image, x, y) for x in range(box.left() + 3, box.right() - 2)
              for y in range(box.top() + 3, box.bottom() - 2)]
    return max(contrast(pixel, inside) for pixel in pixels)


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_check_boxes_and_radio_buttons_show_their_edge_and_their_mark(qtbot: Any, choice: str) -> None:
    p = theme.apply_theme(choice)
    host = QWidget()
    qtbot.addWidget(host)
    row = QHBoxLayout(host)
    buttons: list[QAbstractButton] = []
    for kind in (QCheckBox, QRadioButton):
        for checked in (False, True):
            button: QAbstractButton = kind("Side by side")
            button.setChecked(checked)
            row.addWidget(button)
            buttons.append(button)
    host.show()
    qtbot.waitExposed(host)
    qtbot.waitUntil(lambda: all(b.isVisible() and b.width() > 0 for b in buttons))
    for button in buttons:
        image = button.grab().toImage()
        box = _indicator(button)
        middle = box.center().y()
        # The left edge of the box (a ring's leftmost point is on its middle line).
        edge = _colour(image, box.left(), middle)
        # Inside, clear of the mark: a box's corner, a ring's top.
        inside = _colour(image, box.left() + 2, box.top() + 2) if isinstance(button, QCheckBox) else \
            _colour(image, box.center().x(), box.top() + 3)
        name = f"{type(button).__name__} checked={button.isChecked()}"
        assert contrast(edge, p.window) >= LEAST_CONTRAST, (name, edge, contrast(edge, p.window))
        assert contrast(edge, inside) >= LEAST_CONTRAST, (name, edge, inside, contrast(edge, inside))
        if button.isChecked():
            assert _mark_contrast(image, box, inside) >= LEAST_CONTRAST, (name, inside)


def test_the_edges_survive_many_switches(qtbot: Any, qapp: QApplication) -> None:
    """The style that draws the edges is installed once: under the application's style sheet,
    ``app.style()`` is the sheet's own style, so every switch installed another, and a window
    opened after a few switches was drawn with Qt's plain frames (a black box on the dark theme)."""
    for choice in ("light", "dark", "light", "dark"):
        p = theme.apply_theme(choice)
    assert len(qapp.findChildren(FieldEdgeStyle)) == 1
    box = QCheckBox("Side by side")
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    rect = _indicator(box)
    edge = _colour(box.grab().toImage(), rect.left(), rect.center().y())
    assert contrast(edge, p.window) >= LEAST_CONTRAST, edge


def _inside_and_edge(button: QAbstractButton) -> tuple[str, str, QImage]:
    """The colour just inside the box or ring (clear of the mark) and of its left edge, as drawn."""
    image = button.grab().toImage()
    box = _indicator(button)
    edge = _colour(image, box.left(), box.center().y())
    inside = _colour(image, box.left() + 2, box.top() + 2) if isinstance(button, QCheckBox) else \
        _colour(image, box.center().x(), box.top() + 3)
    return inside, edge, image


@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton])
@pytest.mark.parametrize("choice", ["light", "dark"])
def test_the_pointer_and_a_press_show_and_off_is_dimmed(qtbot: Any, choice: str,
                                                         kind: type[QCheckBox | QRadioButton]) -> None:
    """Like Qt's own, a drawn box or ring shows the pointer over it (the accent edge, a tint
    inside) and a press (a deeper tint), each with its edge 3:1 or more against the window and the
    inside and its mark 3:1 against the inside; switched off it is quieter. Before, all three
    looked like a box at rest."""
    p = theme.apply_theme(choice)
    host = QWidget()
    qtbot.addWidget(host)
    row = QHBoxLayout(host)
    rest, over, pressed, off = (kind("Side by side") for _ in range(4))
    for button in (rest, over, pressed, off):
        button.setChecked(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the focus also takes the accent: not this test's
        row.addWidget(button)
    off.setEnabled(False)
    host.show()
    qtbot.waitExposed(host)
    pressed.setDown(True)  # as while the mouse button is held on it
    qtbot.mouseMove(over, _indicator(over).center())
    qtbot.waitUntil(over.underMouse)
    drawn = {name: _inside_and_edge(b) for name, b in
             (("rest", rest), ("over", over), ("pressed", pressed), ("off", off))}
    insides = {name: inside for name, (inside, _edge, _image) in drawn.items()}
    assert len(set(insides.values())) == 4, insides  # four states, four looks
    rest_edge = drawn["rest"][1]
    for name in ("over", "pressed"):
        inside, edge, image = drawn[name]
        assert edge != rest_edge, (name, edge)
        assert contrast(edge, p.window) >= LEAST_CONTRAST, (name, edge, contrast(edge, p.window))
        assert contrast(edge, inside) >= LEAST_CONTRAST, (name, edge, inside, contrast(edge, inside))
        box = _indicator(over if name == "over" else pressed)
        assert _mark_contrast(image, box, inside) >= LEAST_CONTRAST, name
    off_inside, off_edge, _image = drawn["off"]
    assert contrast(off_edge, off_inside) < contrast(rest_edge, insides["rest"]), (off_edge, rest_edge)
