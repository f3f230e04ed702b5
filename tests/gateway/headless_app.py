"""The app without a window, for a process of its own (the gateway tests that kill it, and
``bench/gateway.py``): the real engine with the gateway service on the MCP manager's loop, and
nobody to ask. Settings, servers, folders and the socket's path come from the environment the
caller prepared."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from echo_desk.agent.host import ScriptedHost
from echo_desk.gateway.service import GatewayService
from echo_desk.runtime import Runtime
from echo_desk.store.paths import config_dir, data_dir
from echo_desk.store.settings import SettingsStore


@asynccontextmanager
async def headless_app() -> AsyncIterator[Runtime]:
    """The runtime, once the gateway's socket listens; shut down on the way out."""
    runtime = Runtime.create(settings_store=SettingsStore.in_dir(config_dir()), data_dir=data_dir(), with_plugins=False)
    await runtime.attach_mcp(wait=True)
    assert runtime.mcp is not None
    service = GatewayService(runtime, ScriptedHost())
    service.start_on(runtime.mcp.loop)
    try:
        yield runtime
    finally:
        await service.shutdown()
        await runtime.aclose()


async def until_stdin_closes() -> None:
    """Waits for the process that started this one to close its stdin (or to die)."""
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
