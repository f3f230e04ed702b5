"""Guards against a Qt binding that corrupts Python's refcounts (PySide6 6.12.0 on Python 3.11)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument


def test_void_qt_calls_do_not_drain_none_refcount(qapp):
    timer = QTimer()
    cursor = QTextCursor(QTextDocument())
    fmt = QTextCharFormat()
    before = sys.getrefcount(None)
    for _ in range(2000):
        timer.setInterval(5)
        cursor.setPosition(0)
        cursor.mergeCharFormat(fmt)
    # A broken binding loses one reference per call (-6000 here) and soon aborts the app.
    assert sys.getrefcount(None) - before > -100
