"""Restoring the main window as it was left: size and place, splitter, last conversation."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray

from echo_desk.store import window_state
from echo_desk.store.window_state import WindowState

if TYPE_CHECKING:
    from echo_desk.ui.chat.chat_window import MainWindow

log = logging.getLogger(__name__)


def _blob(text: str) -> QByteArray:
    return QByteArray.fromBase64(text.encode("ascii"))


def _text(blob: QByteArray) -> str:
    return bytes(blob.toBase64().data()).decode("ascii")


def capture(window: MainWindow) -> WindowState:
    conversation = window.session.conversation
    return WindowState(geometry=_text(window.saveGeometry()), splitter=_text(window.splitter.saveState()),
                       last_conversation=str(conversation.id) if conversation is not None else "")


def restore_layout(window: MainWindow, state: WindowState) -> None:
    """Size, place and splitter (a blob Qt rejects leaves the defaults)."""
    if state.geometry and not window.restoreGeometry(_blob(state.geometry)):
        log.info("saved window geometry not usable; keeping the default")
    if state.splitter and not window.splitter.restoreState(_blob(state.splitter)):
        log.info("saved splitter state not usable; keeping the default")


def remember(window: MainWindow) -> None:
    """Save the window's state beside the settings (nothing when no settings are attached)."""
    services = window.services
    if services is None or services.settings.path is None:
        return
    try:
        window_state.save(services.settings.path.parent, capture(window))
    except OSError as exc:  # the window still closes; next start uses the defaults
        log.warning("window state not saved: %s", exc)


def remembered(window: MainWindow) -> WindowState:
    services = window.services
    if services is None or services.settings.path is None:
        return WindowState()
    return window_state.load(services.settings.path.parent)
