"""The app's side of ``bench/gateway.py`` in a process of its own, as a person runs it
(``tests/gateway/headless_app.py``). Prints ``ready PID TID`` (TID: the MCP thread, whose CPU the
bench reads) once the socket listens, and stops when its stdin closes.

Garbage is collected as the app collects it (``echo_desk/ui/app/main.py``): what is alive once
everything has started is frozen out of the collector's reach, and the automatic collector is off,
its collections run on the main thread instead, the window's in the app (``ui/core/gui_collector``).
Left automatic, a collection ran on the MCP thread in the middle of a call (one every ~25 calls,
and a full one walking every start-up object now and then), which the app never does there.
``--gc-as-python`` leaves the collector as Python sets it (the bench as it was before).

Run by bench/gateway.py, not by hand.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: keep it from shadowing anything.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tests.gateway.headless_app import headless_app, until_stdin_closes  # noqa: E402

#: As ``gui_collector.CHECK_EVERY_MS``: how often the main thread looks whether a collection is due.
CHECK_EVERY_SECONDS = 0.25


async def collect_when_due() -> None:
    """What ``gui_collector.GuiThreadCollector`` does on the window's thread, on this loop's."""
    while True:
        await asyncio.sleep(CHECK_EVERY_SECONDS)
        counts, thresholds = gc.get_count(), gc.get_threshold()
        for generation in (2, 1, 0):
            if thresholds[generation] and counts[generation] > thresholds[generation]:
                gc.collect(generation)
                break


async def main() -> None:
    as_the_app = "--gc-as-python" not in sys.argv
    if as_the_app:
        gc.disable()  # from the start, as the app (engine threads allocate from the first load on)
    async with headless_app() as runtime:
        assert runtime.mcp is not None

        async def native_id() -> int:
            return threading.get_native_id()

        tid = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(native_id(), runtime.mcp.loop))
        collector = None
        if as_the_app:
            gc.collect()
            gc.freeze()
            collector = asyncio.ensure_future(collect_when_due())
        print(f"ready {os.getpid()} {tid}", flush=True)
        try:
            await until_stdin_closes()
        finally:
            if collector is not None:
                collector.cancel()


if __name__ == "__main__":
    asyncio.run(main())
