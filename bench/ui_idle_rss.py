"""Idle memory of the real app: run_gui with the engine and store loaded, after 3 s of idling.

Target ≤ 200 MB RSS. (A local model, when one is running, is a separate process.)
Run: QT_QPA_PLATFORM=offscreen python bench/ui_idle_rss.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        for var, sub in (("ECHO_DESK_CONFIG_DIR", "c"), ("ECHO_DESK_DATA_DIR", "d"), ("ECHO_DESK_CACHE_DIR", "k")):
            os.environ.setdefault(var, f"{home}/{sub}")
        from echo_desk.ui.app import main as app_module

        original = app_module.App.load
        figures: dict[str, float] = {}

        async def load_idle_measure(self: app_module.App) -> None:
            figures["after_first_frame"] = rss_mb()
            await original(self)
            self.open_settings()  # the catalog too, as a person would look at it
            await asyncio.sleep(3.0)  # idle: nothing to do but wait
            figures["idle"] = rss_mb()
            self.window.close()

        app_module.App.load = load_idle_measure  # type: ignore[method-assign]
        app_module.run_gui(["echo-desk"])
    print(f"RSS after the first frame: {figures['after_first_frame']:.0f} MB")
    print(f"idle RSS with engine, store and settings window loaded: {figures['idle']:.0f} MB "
          f"(target <= 200 MB) {'OK' if figures['idle'] <= 200 else 'OVER'}")


if __name__ == "__main__":
    main()
