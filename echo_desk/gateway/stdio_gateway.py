"""``echo-desk gateway --client NAME``: one client's MCP server on stdio, relaying to the app.

The handshake era's plain requests are answered by hand (``handshake``); the SDK's server is
imported and opened only for a session that needs it (``sdk_session``). With
``ECHO_DESK_GATEWAY_SDK=1`` the SDK serves every session whole, as before there was a hand path
(for a client that meets a difference; the tests compare the two).
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Callable
from typing import Any

from echo_desk.gateway.backend import AppBackend
from echo_desk.gateway.handshake import HandServed
from echo_desk.gateway.stdio import SdkSide, claimed_stdio, serve

SDK_ONLY_ENV = "ECHO_DESK_GATEWAY_SDK"


async def serve_stdio(backend: AppBackend) -> None:
    """Serve until the client closes stdin (or stops reading), then let the app go."""
    hand = HandServed(backend, by_hand=os.environ.get(SDK_ONLY_ENV) != "1")
    watchers: Any = None  # the SDK's ListWatchers, once a session needs the SDK
    told: set[asyncio.Task[Any]] = set()

    def tools_changed() -> None:
        if hand.mine:
            hand.tools_changed()
        elif watchers is not None:
            task = asyncio.ensure_future(watchers.changed())
            told.add(task)
            task.add_done_callback(told.discard)

    backend.on_tools_changed = tools_changed
    try:
        async with claimed_stdio() as wire:

            async def open_sdk(prelude: list[bytes], drop_id: Any, end: Callable[[], None]) -> SdkSide:
                nonlocal watchers
                # ~1.2 s of imports on a worker thread: calls running by hand go on meanwhile.
                await asyncio.to_thread(importlib.import_module, "echo_desk.gateway.sdk_session")
                from echo_desk.gateway.sdk_session import SdkSession
                from echo_desk.gateway.server import ListWatchers

                watchers = ListWatchers()
                return await SdkSession.open(backend, watchers, wire.write, prelude, drop_id, end, hand.busy)

            await serve(wire, hand, open_sdk)
    finally:
        await backend.aclose()
