"""The whole way for a start-up notice: the real app starts (``run_gui``), the notice appears once
the app has loaded, the test closes it with OK and the app waits until it is marked told."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox


def text_of_the_notice_at_start(monkeypatch: pytest.MonkeyPatch, notice_of: Callable[[Any], Any],
                                still_untold: Callable[[], bool], seconds: float = 20) -> str:
    """Runs the app; returns the notice's informative text. ``notice_of(app)`` is the app's notice
    object (with ``.box``), ``still_untold()`` whether its records still wait to be told."""
    from echo_desk.ui.app import main as app_module

    seen: dict[str, str] = {}
    original_load = app_module.App.load

    async def load_then_close(self: app_module.App) -> None:
        await original_load(self)
        deadline = time.monotonic() + seconds
        while (notice := notice_of(self)) is None or notice.box is None or not notice.box.isVisible():
            assert time.monotonic() < deadline, "no notice at start"
            await asyncio.sleep(0.02)
        seen["text"] = notice.box.informativeText()
        notice.box.button(QMessageBox.StandardButton.Ok).click()
        while still_untold():
            assert time.monotonic() < deadline, "the notice was closed but not marked told"
            await asyncio.sleep(0.02)
        self.window.close()

    monkeypatch.setattr(app_module.App, "load", load_then_close)
    assert app_module.run_gui(["echo-desk"]) == 0
    return seen["text"]
