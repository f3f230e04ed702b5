"""The app's side in a process of its own, for tests that kill it: the real engine with the
gateway service on the MCP manager's loop, no window, nobody to ask. Settings, servers, folders
and the socket's path come from the environment the test prepared. Prints ``ready`` once the
socket listens; runs until it is killed or its stdin closes.

Run as ``python -m tests.gateway.app_process`` by the tests, not by hand.
"""

from __future__ import annotations

import asyncio
import sys


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
    print("ready", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the test closes it
    finally:
        await service.shutdown()
        await runtime.aclose()


if __name__ == "__main__":
    asyncio.run(main())
