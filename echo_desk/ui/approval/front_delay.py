"""A window that opens unasked in front of whatever the person was doing (an MCP client's
approval, a server's question during a client's call) must not take a click or key meant for the
window below: its answering buttons work only once it has been in front for ``ARM_DELAY_MS``,
counted again each time it is shown or activated."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

#: How long such a window must have been in front before its buttons that say yes work (ms).
ARM_DELAY_MS = 700


class FrontDelay(QObject):
    """``armed`` once ``window`` has been in front for ``ARM_DELAY_MS``; ``changed`` is called
    whenever that flips. With ``applies`` off (a window the person's own action opened) it is
    always armed."""

    def __init__(self, window: QWidget, changed: Callable[[], None], *, applies: bool) -> None:
        super().__init__(window)
        self.armed = not applies
        self._changed = changed
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ARM_DELAY_MS)
        self._timer.timeout.connect(self._arm)
        if applies:
            window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Show, QEvent.Type.WindowActivate):
            self.armed = False
            self._timer.start()
            self._changed()
        return False

    def _arm(self) -> None:
        self.armed = True
        self._changed()
