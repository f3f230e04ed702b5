"""Opening an address in the person's browser from the terminal, when there is one to open."""

from __future__ import annotations

import asyncio
import os
import sys
import webbrowser


def has_display() -> bool:
    """Whether a browser can open here (a desktop session; macOS and Windows always have one)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def open_in_browser(url: str) -> bool:
    """Open ``url`` when there is a display; ``False`` when the person must open it themselves."""
    if not has_display():
        return False
    return await asyncio.to_thread(webbrowser.open, url)
