"""The app icon on every window and the desktop-entry id, set by ``run_gui``."""

from __future__ import annotations

import gc

import pytest
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from echo_desk.resources import ICON_SIZES
from echo_desk.ui.app import main as app_module
from echo_desk.ui.core.app_icon import APP_ID


def test_run_gui_gives_every_window_the_app_icon(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    qapp.setWindowIcon(QIcon())
    qapp.setDesktopFileName("")
    monkeypatch.setenv("ECHO_DESK_EXIT_AFTER_FIRST_FRAME", "1")

    assert app_module.run_gui(["echo-desk"]) == 0
    assert gc.isenabled()  # left after the first frame: the automatic collector is given back

    sizes = sorted(size.width() for size in qapp.windowIcon().availableSizes())
    assert sizes == sorted(ICON_SIZES)
    assert not qapp.windowIcon().pixmap(512).isNull()  # beyond the PNGs: the SVG scales
    window = QWidget()
    assert window.windowIcon().cacheKey() == qapp.windowIcon().cacheKey()
    assert qapp.desktopFileName() == APP_ID
    window.deleteLater()
