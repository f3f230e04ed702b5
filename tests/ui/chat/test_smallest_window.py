"""The main window at the smallest size it allows, as a new user first sees it (no model yet, an
empty conversation), in English and Chinese: the notice above the transcript, the example
requests, the task list's caption and hint are whole. Before, the window went down to 764×354:
the notice lost its first and last lines, the example buttons were squashed to half their
height and the task list was a column one word wide ("任务" cut in two)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QWidget

from echo_desk.i18n import N_, deferred
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt


def _notice() -> str:
    # The longest notice a first start shows: the engine did not start and no model is connected.
    from echo_desk.ui.app.services import Services

    services = Services.__new__(Services)
    services.runtime, services.model, services.engine_error = None, None, ""
    services.providers_available = True
    services.model_error = deferred(N_("The built-in model is not downloaded yet. Download it with “{command}”."),
                                    command="python -m echo_desk.providers.local.fetch_default")
    return services.banner()


def _whole(label: QLabel) -> bool:
    """A wrapped label has the height its words need at its width (and a one-line one the width)."""
    if label.wordWrap():
        return label.height() >= label.heightForWidth(label.width())
    return label.width() >= label.fontMetrics().horizontalAdvance(label.text())


def _shown(widget: QWidget) -> bool:
    return widget.isVisibleTo(widget.window())


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_nothing_is_cut_at_the_smallest_size(qtbot, language: str) -> None:
    i18n_qt.apply_language(language)
    window = MainWindow()
    qtbot.addWidget(window)
    window.set_banner(_notice)
    window.show()
    qtbot.waitExposed(window)
    window.resize(window.minimumSize())
    qtbot.waitUntil(lambda: window.size() == window.minimumSize(), timeout=5000)
    assert window.minimumSize().width() <= 1024 and window.minimumSize().height() <= 640  # a small laptop
    assert _shown(window.banner) and _whole(window.banner), (window.banner.size(), window.banner.text())
    assert _shown(window.examples)
    for button in window.examples.buttons:
        assert button.height() >= button.sizeHint().height(), button.text()
        assert button.width() >= button.sizeHint().width(), button.text()
    todos = window.todos
    assert _whole(todos.caption) and _whole(todos.empty)
    # The hint reads as a sentence, not a word per line.
    assert todos.empty.heightForWidth(todos.empty.width()) <= 6 * todos.empty.fontMetrics().lineSpacing()
    for button in (window.send_button, window.stop_button, window.settings_button):
        assert button.width() >= button.sizeHint().width(), button.text()
