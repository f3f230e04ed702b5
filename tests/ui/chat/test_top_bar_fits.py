"""The main window's top bar (model picker, "Workspace:", the folder, Settings) at 900 px and at
the window's smallest width, in English and Chinese, with the desktop's font and a larger one:
no two of its widgets overlap, none runs past the bar's edge, and a long model name is elided,
not cut at the arrow. Before, the window went down to 900 px whatever its panes needed: with a
larger font Qt squeezed the bar and the model picker reached under "Workspace:"."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionComboBox, QWidget

from echo_desk.ui.chat.chat_window import SMALLEST, MainWindow
from echo_desk.ui.core import i18n_qt

LONG_MODEL = "Local (built-in) · qwen2.5-coder-1.5b-instruct-q4_k_m"
LONG_FOLDER = "/home/someone/Documents/Projects/a-rather-long-workspace-folder-name"


def _bar(window: MainWindow) -> list[QWidget]:
    return [window.model_label, window.model_picker, window.workspace_label, window.workspace_button,
            window.settings_button]


def _check_the_bar(window: MainWindow) -> None:
    bar = _bar(window)
    top = window.model_label.parentWidget()
    assert top is not None
    room = top.rect()
    for widget in bar:
        assert room.contains(widget.geometry()), (type(widget).__name__, widget.geometry(), room)
        assert widget.width() >= widget.minimumSizeHint().width() or widget.width() >= widget.minimumWidth() > 0, \
            (type(widget).__name__, widget.width(), window.splitter.sizes())
    for one, other in itertools.pairwise(bar):
        assert not one.geometry().intersects(other.geometry()), (one.geometry(), other.geometry())
    middle = window.splitter.widget(1)
    assert middle is not None and middle.width() >= middle.minimumSizeHint().width()
    picker = window.model_picker
    option = QStyleOptionComboBox()
    picker.initStyleOption(option)
    field = picker.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                          QStyle.SubControl.SC_ComboBoxEditField, picker)
    shown = picker.shown_text()
    assert picker.fontMetrics().horizontalAdvance(shown) <= field.width(), shown
    assert shown == LONG_MODEL or shown.endswith("…"), shown
    assert picker.toolTip() == LONG_MODEL


def _window(qtbot: Any, language: str) -> MainWindow:
    i18n_qt.apply_language(language)
    window = MainWindow()
    qtbot.addWidget(window)
    window.model_picker.addItem(LONG_MODEL, "local")
    window.model_picker.addItem("openai · gpt-4o-mini", "openai")
    window.set_workspace(LONG_FOLDER)
    window.show()
    qtbot.waitExposed(window)
    return window


def _resize(qtbot: Any, window: MainWindow, width: int) -> None:
    """Ask for ``width``; wait until the window is as wide as it may be and no narrower than
    its panes need now (after a language switch too)."""
    window.resize(width, SMALLEST[1])

    def settled() -> bool:
        # The layouts asked to run first: a language switch reaches the window's size a step later.
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        expected = max(width, window.minimumWidth())
        return (window.width() == expected == window.splitter.width()
                and window.minimumWidth() >= window.splitter.minimumSizeHint().width())

    qtbot.waitUntil(settled, timeout=5000)
    QApplication.processEvents()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_top_bar_fits_at_900_px(qtbot: Any, language: str) -> None:
    window = _window(qtbot, language)
    _resize(qtbot, window, 900)
    assert window.width() == 900  # the desktop's font: the window still goes down to 900 px
    _check_the_bar(window)
    i18n_qt.apply_language("en")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_with_a_larger_font_the_window_keeps_room_for_the_top_bar(qtbot: Any, larger_font: None,
                                                                  language: str) -> None:
    window = _window(qtbot, language)
    for width in (900, 1180, 900):  # and after a language switch the smallest width follows
        _resize(qtbot, window, width)
        _check_the_bar(window)
    assert window.minimumWidth() <= 1024  # still a small laptop's screen
    before = window.workspace_label.text()
    i18n_qt.apply_language("zh_CN" if language == "en" else "en")
    qtbot.waitUntil(lambda: window.workspace_label.text() != before)
    _resize(qtbot, window, 900)
    _check_the_bar(window)
    i18n_qt.apply_language("en")
