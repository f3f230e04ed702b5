"""Python's cyclic garbage collector, run on the window's thread only.

Left automatic, a collection runs on whichever thread happens to allocate: a tool worker, the MCP
manager's loop, a background save. A dialog that was closed and dropped is garbage in a cycle (a
slot that holds its own widget), and collecting it there deletes its Qt objects off the thread
that owns them: Qt may crash the whole app (it did in the screenshot scripts and the test
suite). So the automatic collector is switched off, and a timer on the window's thread runs the
collection the automatic one would have run, as soon as its generation is due.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the window's thread looks whether a collection is due. Between two looks garbage in
#: cycles waits (what is not in a cycle is freed at once, as always).
CHECK_EVERY_MS = 250


class GuiThreadCollector(QObject):
    """Create on the window's thread; it collects until ``stop``, which switches the automatic
    collector back on."""

    def __init__(self, parent: QObject | None = None, *, every_ms: int = CHECK_EVERY_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(self.collect_if_due)
        self._timer.start()

    def collect_if_due(self) -> int:
        """Run the oldest generation that is due, as the automatic collector would; what it freed."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        for generation in (2, 1, 0):
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                return gc.collect(generation)
        return 0

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
