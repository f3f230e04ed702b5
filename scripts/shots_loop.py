"""The app's own loop for a screenshot script: catalogs compiled, a QApplication that outlives
its windows, the one marshalling module installed, qasync with the app's async-generator hooks.
Each shot is a coroutine function run to its end, in order; then the marshal shuts down."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication

from echo_desk.i18n_build import compile_catalogs
from echo_desk.ui.core import i18n_qt, marshal


def run_shots(out: Path, *shots: Callable[[], Awaitable[None]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    compile_catalogs()
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    marshal.install()
    i18n_qt.apply_language("en")
    # The cyclic collector runs on whichever thread allocates: on a tool worker it deleted a dead
    # window's Qt objects off the GUI thread and crashed the run (a segfault after the English pass
    # of screenshots_dialogs.py, at the start of screenshots.py's Chinese pass). Collect only here.
    gc.disable()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop, marshal.asyncgen_hooks(loop):
        for shot in shots:
            loop.run_until_complete(shot())
            gc.collect()
        loop.run_until_complete(marshal.shutdown())
