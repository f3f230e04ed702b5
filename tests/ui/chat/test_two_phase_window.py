"""The app builds the window's hidden parts right after its first frame (``defer_extras``): once
built, the window is the same as one built whole, and nothing typed before then is lost."""

from __future__ import annotations

from PySide6.QtWidgets import QLayout, QWidget

from echo_desk.i18n import _
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt


def _column(layout: QLayout) -> list[str]:
    """The widgets of the middle column, top to bottom (nested layouts flattened)."""
    names: list[str] = []
    for i in range(layout.count()):
        item = layout.itemAt(i)
        widget, inner = item.widget(), item.layout()
        if isinstance(widget, QWidget):
            names.append(type(widget).__name__)
        elif inner is not None:
            names.extend(_column(inner))
    return names


def _menu(window: MainWindow) -> list[str]:
    menu = window.attach_button.menu()
    return [a.text() for a in menu.actions()] if menu is not None else []


def test_a_deferred_window_once_finished_is_the_window_built_whole(qtbot) -> None:
    whole, deferred = MainWindow(), MainWindow(defer_extras=True)
    qtbot.addWidget(whole)
    qtbot.addWidget(deferred)
    assert not deferred.extras_built and not hasattr(deferred, "attachment_tray") and _menu(deferred) == []
    assert "RetryCard" not in _column(deferred._middle)

    deferred.build_extras()
    deferred.build_extras()  # once only
    assert deferred.extras_built
    assert _column(deferred._middle) == _column(whole._middle)
    assert _column(whole._middle).count("AttachmentTray") == 1
    assert _menu(deferred) == _menu(whole) == [_("Files…"), _("Folder…"), _("MCP resource…")]


def test_send_before_the_extras_does_nothing_and_keeps_the_text(qtbot) -> None:
    window = MainWindow(defer_extras=True)
    qtbot.addWidget(window)
    window.composer.setPlainText("hello")
    window.send()
    assert window.composer.toPlainText() == "hello"
    assert window.session.transcript.rowCount() == 0


def test_a_language_chosen_before_the_extras_reaches_them(qtbot) -> None:
    window = MainWindow(defer_extras=True)
    qtbot.addWidget(window)
    i18n_qt.apply_language("zh_CN")
    try:
        window.build_extras()
        files = _("Files…")
        assert files != "Files…"  # really translated
        assert _menu(window)[0] == files
    finally:
        i18n_qt.apply_language("en")
    assert _menu(window)[0] == "Files…"
