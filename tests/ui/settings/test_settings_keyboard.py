"""Settings by keyboard, in English and Chinese: every stop Tab makes on a page is a control with a
name (what a screen reader says, and what the person can tell apart), none is an invisible stop
(the Sandbox page's scroll area took the first Tab and showed nothing), and the Sandbox page's
empty lists say what goes in them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QScrollArea, QTabWidget, QWidget

from echo_desk.runtime import Runtime
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.settings_dialog import SettingsDialog


def _tab_stops(page: QWidget) -> list[QWidget]:
    """The widgets Tab visits inside ``page``, in order."""
    stops: list[QWidget] = []
    widget = page.nextInFocusChain()
    while widget is not page and len(stops) < 500:
        takes_tab = (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) == Qt.FocusPolicy.TabFocus
        inner = isinstance(widget.parentWidget(), QAbstractSpinBox)  # the spin box's own line edit
        if takes_tab and not inner and page.isAncestorOf(widget) and widget.isVisible() and widget.isEnabled():
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def _name(widget: QWidget) -> str:
    if widget.accessibleName():
        return widget.accessibleName()
    return widget.text() if isinstance(widget, QAbstractButton) else ""


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_tab_stop_of_every_page_has_a_name(qtbot, runtime: Runtime, tmp_path, language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime), workspace=lambda: str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show()
    unnamed: list[str] = []
    for name in dialog.PAGES:
        dialog.show_page(name)
        page = dialog.stack.currentWidget()
        tabs = page.findChild(QTabWidget)
        parts = [tabs.widget(i) for i in range(tabs.count())] if tabs is not None else [page]
        for index, part in enumerate(parts):
            if tabs is not None:
                tabs.setCurrentIndex(index)
            for stop in _tab_stops(part):
                assert not isinstance(stop, QScrollArea), f"{name}: Tab stops on the page's scroll area"
                if not _name(stop):
                    unnamed.append(f"{name}/{index}: {type(stop).__name__}")
    assert not unnamed


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_sandbox_lists_say_what_goes_in_them_while_empty(qtbot, runtime: Runtime, tmp_path,
                                                             language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime), workspace=lambda: str(tmp_path))
    qtbot.addWidget(dialog)
    sandbox = dialog.sandbox
    assert not sandbox.domains.toPlainText() and not sandbox.hidden.toPlainText()
    english = {"domains": "pypi.org", "hidden": "~/"}
    for editor, example in ((sandbox.domains, english["domains"]), (sandbox.hidden, english["hidden"])):
        hint = editor.placeholderText()
        assert example in hint
        if language == "zh_CN":
            assert "例如" in hint, hint


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_connected_apps_empty_tools_sentence_is_whole_in_the_smallest_window(qtbot, runtime: Runtime, tmp_path,
                                                                              language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime), workspace=lambda: str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show_page("connected")
    dialog.show()
    dialog.resize(dialog.minimumSizeHint())
    tools = dialog.connected.tools
    qtbot.waitUntil(lambda: tools.count() > 0 and tools.viewport().width() > 0, timeout=5000)

    def sentence_height() -> int:  # the list is filled again as the page settles: the row of the moment
        return tools.visualItemRect(tools.item(0)).height()

    assert tools.item(0).text() == dialog.connected.no_tools_text  # nothing is moved behind Echo Desk here
    # Before: the list was one line high, the sentence cut to half a line.
    qtbot.waitUntil(lambda: sentence_height() <= tools.viewport().height(), timeout=5000)
    assert sentence_height() > tools.fontMetrics().lineSpacing()  # wrapped, not elided
