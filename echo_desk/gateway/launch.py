"""Starting the app for a client that needs it: once, only with a display, with a deadline.

A gateway started by a client (Cursor launches its MCP servers when it opens) finds no app:
with a display it starts ``echo-desk`` (detached, in its own session, so the app outlives the
client) and waits for the app's socket, at most ``APP_START_SECONDS``. Without a display, or
when ``ECHO_DESK_GATEWAY_START=0`` (or ``--no-start``), it never starts anything.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

#: Longest wait for a starting app's socket (its window first, then the engine).
APP_START_SECONDS = 30.0
START_ENV = "ECHO_DESK_GATEWAY_START"


def display_available() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def app_command() -> list[str]:
    return [sys.executable, "-m", "echo_desk"]


@dataclass
class AppLauncher:
    allowed: bool = True
    deadline: float = APP_START_SECONDS
    tried: bool = False
    why_not: str = ""

    def may_start(self) -> bool:
        if self.tried or not self.allowed or os.environ.get(START_ENV) == "0":
            return False
        if not display_available():
            self.why_not = "Echo Desk is not running, and there is no display to open it on"
            return False
        return True

    async def start_and_wait(self, socket: Path) -> bool:
        """Start the app and wait for its socket; ``False`` (with ``why_not``) when it did not come."""
        self.tried = True
        try:
            process = await asyncio.to_thread(_spawn_app)
        except OSError as exc:
            self.why_not = f"Echo Desk is not running and could not be started ({exc})"
            return False
        end = time.monotonic() + self.deadline
        while time.monotonic() < end:
            if await _answers(socket):
                return True
            if process.poll() is not None:
                self.why_not = f"Echo Desk was started but ended at once (exit code {process.returncode})"
                return False
            await asyncio.sleep(0.2)
        self.why_not = f"Echo Desk was started but did not answer within {self.deadline:g} s"
        return False


def _spawn_app() -> subprocess.Popen[bytes]:
    """The app, detached: its own session, so it outlives the client that started this gateway."""
    return subprocess.Popen(app_command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


async def _answers(path: Path) -> bool:
    try:
        _reader, writer = await asyncio.open_unix_connection(str(path))
    except OSError:
        return False
    writer.close()
    return True
