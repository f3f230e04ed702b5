"""The app's side of ``bench/gateway.py`` in a process of its own, as a person runs it: the real
engine with the gateway service on the MCP manager's loop, no window. Settings, servers and the
socket's path come from the environment the bench prepared. Prints ``ready PID TID`` (TID: the MCP
thread, whose CPU the bench reads) once the socket listens, and stops when its stdin closes.

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


async def main() -> None:
    from echo_desk.agent.host import ScriptedHost
    from echo_desk.gateway.service import GatewayService
    from echo_desk.runtime import Runtime
    from echo_desk.store.paths import config_dir, data_dir
    from echo_desk.store.settings import SettingsStore

    runtime = Runtime.create(settings_store=SettingsStore.in_dir(config_dir()), data_dir=data_dir(), with_plugins=False)
    await runtime.attach_mcp(wait=True)
    assert runtime.mcp is not None
    service = GatewayService(runtime, ScriptedHost())
    service.start_on(runtime.mcp.loop)

    async def native_id() -> int:
        return threading.get_native_id()

    tid = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(native_id(), runtime.mcp.loop))
    print(f"ready {os.getpid()} {tid}", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench closes it
    finally:
        await service.shutdown()
        await runtime.aclose()


if __name__ == "__main__":
    asyncio.run(main())
