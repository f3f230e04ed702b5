"""Cycles are collected on the window's thread, never on a worker that happens to allocate (where
deleting Qt objects can crash the app)."""

from __future__ import annotations

import gc
import threading

from echo_desk.ui.core.gui_collector import GuiThreadCollector


def test_garbage_made_on_a_worker_is_collected_on_the_window_thread_only(qtbot) -> None:
    collected_on: list[bool] = []

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            collected_on.append(threading.current_thread() is threading.main_thread())

    def churn() -> None:  # enough garbage in cycles that a collection is due, made on a worker
        for _ in range(2_000):
            Cycle()

    assert gc.isenabled()
    collector = GuiThreadCollector(every_ms=20)
    try:
        worker = threading.Thread(target=churn)
        worker.start()
        worker.join()
        assert collected_on == []  # the automatic collector would have run on the worker
        qtbot.waitUntil(lambda: len(collected_on) == 2_000, timeout=5_000)
        assert all(collected_on)
    finally:
        collector.stop()
    assert gc.isenabled()
