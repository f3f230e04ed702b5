"""The conversation list beside a 900 px window: its New, Rename and Delete buttons ask only the
room their words need, so the window's smallest width stays 900 px in English and Chinese with
the desktop's font, and far under 1024 px with a font two points larger; at the pane's smallest
width every button shows its whole label, and the keyboard still reaches them in order. Before,
each button asked Qt's 80 px: the pane needed 252 px whatever the language, and with the larger
font the window could not go below 1001 px (925 px in Chinese)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QPushButton, QStyle, QStyleOptionButton

from echo_desk.i18n import _
from echo_desk.ui.chat.chat_window import SMALLEST, MainWindow
from echo_desk.ui.core import i18n_qt

#: What the pane may ask at most: with the desktop's font, and two points larger.
PANE_MOST = 200
PANE_MOST_LARGER = 220
#: The window's smallest width with the larger font (a small laptop's screen is 1024 px).
WINDOW_MOST_LARGER = 960


def _window(qtbot: Any, language: str) -> MainWindow:
    i18n_qt.apply_language(language)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _settled_minimum(window: MainWindow) -> int:
    """The window's smallest width once its layouts have run (a font or language change first)."""
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    QApplication.processEvents()
    return window.minimumWidth()


def _needed(window: MainWindow) -> int:
    """The width the window's panes need together."""
    layout = window.layout()
    assert layout is not None
    return layout.minimumSize().width()


def _buttons(window: MainWindow) -> list[QPushButton]:
    pane = window.conversations
    return [pane.new_button, pane.rename_button, pane.delete_button]


def _check_widths(qtbot: Any, window: MainWindow, pane_most: int, window_most: int) -> None:
    pane = window.conversations
    qtbot.waitUntil(lambda: _settled_minimum(window) == max(SMALLEST[0], _needed(window)))
    assert pane.minimumSizeHint().width() <= pane_most, pane.minimumSizeHint()
    assert window.minimumWidth() <= window_most, window.minimumWidth()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_window_goes_down_to_900_px_and_the_pane_asks_little(qtbot: Any, language: str) -> None:
    window = _window(qtbot, language)
    _check_widths(qtbot, window, PANE_MOST, SMALLEST[0])
    i18n_qt.apply_language("en")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_with_a_larger_font_the_window_stays_small(qtbot: Any, larger_font: None, language: str) -> None:
    window = _window(qtbot, language)
    _check_widths(qtbot, window, PANE_MOST_LARGER, WINDOW_MOST_LARGER)
    i18n_qt.apply_language("en")


def _whole_label(button: QPushButton) -> bool:
    """The label fits inside the button's frame and margins."""
    option = QStyleOptionButton()
    button.initStyleOption(option)
    style = button.style()
    inside = style.subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button)
    margin = style.pixelMetric(QStyle.PixelMetric.PM_ButtonMargin, option, button)
    return inside.width() - margin >= button.fontMetrics().horizontalAdvance(button.text())


@pytest.mark.parametrize(("language", "larger"), [("en", False), ("zh_CN", False), ("en", True), ("zh_CN", True)])
def test_at_the_pane_s_smallest_width_every_label_is_whole(qtbot: Any, request: pytest.FixtureRequest,
                                                            language: str, larger: bool) -> None:
    if larger:
        request.getfixturevalue("larger_font")
    window = _window(qtbot, language)
    pane = window.conversations
    qtbot.waitUntil(lambda: _settled_minimum(window) >= _needed(window))
    window.resize(window.minimumWidth(), SMALLEST[1])
    least = pane.minimumSizeHint().width()
    sizes = window.splitter.sizes()
    window.splitter.setSizes([least, sum(sizes) - least - sizes[2], sizes[2]])
    qtbot.waitUntil(lambda: pane.width() == least)
    buttons = _buttons(window)
    for button in buttons:
        assert button.parentWidget() is pane and pane.rect().contains(button.geometry()), button.text()
        assert _whole_label(button), (button.text(), button.width())
    for one, other in itertools.pairwise(buttons):
        assert one.geometry().right() < other.geometry().left(), (one.text(), other.text())
    i18n_qt.apply_language("en")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_keyboard_reaches_the_pane_s_buttons(qtbot: Any, language: str) -> None:
    """Tab from the list goes to New, Rename, Delete in turn; each has its own accessible name,
    and Space on New asks for a new conversation."""
    window = _window(qtbot, language)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    pane = window.conversations
    pane.view.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(pane.view.hasFocus)
    for button in _buttons(window):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        qtbot.waitUntil(button.hasFocus)
    names = [b.accessibleName() for b in _buttons(window)]
    assert names == [_("New conversation"), _("Rename conversation"), _("Delete conversation")]
    pane.new_button.setFocus(Qt.FocusReason.TabFocusReason)
    with qtbot.waitSignal(pane.new_requested, timeout=2000):
        qtbot.keyClick(pane.new_button, Qt.Key.Key_Space)
    i18n_qt.apply_language("en")
