"""A desktop notification when another program's agent waits for the person's approval.

The system tray's message where the desktop has a tray, else ``notify-send`` where it is
installed; without either, nothing (the dialog itself is brought to the front). Never blocks,
never raises: a notification is a courtesy, the dialog is the request.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess

from PySide6.QtWidgets import QSystemTrayIcon, QWidget

from echo_desk.i18n import _
from echo_desk.ui.core.app_icon import app_icon

_tray: QSystemTrayIcon | None = None
#: How long the tray's message stays (milliseconds).
SHOWN_MS = 10_000


def notify(title: str, parent: QWidget | None = None) -> str:
    """Tell the desktop that ``title`` (already plain, one-line text) waits for an answer.
    Returns how: ``tray``, ``notify-send`` or ``none``."""
    text = _("An approval is waiting for you in Echo Desk.")
    global _tray
    with contextlib.suppress(RuntimeError):
        if QSystemTrayIcon.isSystemTrayAvailable():
            if _tray is None:
                _tray = QSystemTrayIcon(app_icon(), parent)
            _tray.show()
            _tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, SHOWN_MS)
            return "tray"
    sender = shutil.which("notify-send")
    if sender is None:
        return "none"
    try:
        subprocess.Popen([sender, "--app-name=Echo Desk", "--", title, text], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return "none"
    return "notify-send"


def bring_forward(window: object) -> None:
    """Show ``window`` (a ``QWidget``) in front: restored if minimised, raised, activated."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    assert isinstance(window, QWidget)
    if window.windowState() & Qt.WindowState.WindowMinimized:
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
