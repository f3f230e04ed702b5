"""The app's side of ``bench/gateway.py`` in a process of its own, as a person runs it
(``tests/gateway/headless_app.py``). Prints ``ready PID TID`` (TID: the MCP thread, whose CPU the
bench reads) once the socket listens, and stops when its stdin closes.

Run by bench/gateway.py, not by hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: keep it from shadowing anything.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tests.gateway.headless_app import headless_app, until_stdin_closes  # noqa: E402


async def main() -> None:
    async with headless_app() as runtime:
        assert runtime.mcp is not None

        async def native_id() -> int:
            return threading.get_native_id()

        tid = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(native_id(), runtime.mcp.loop))
        print(f"ready {os.getpid()} {tid}", flush=True)
        await until_stdin_closes()


if __name__ == "__main__":
    asyncio.run(main())
