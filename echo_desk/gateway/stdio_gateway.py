"""``echo-desk gateway --client NAME``: one client's MCP server on stdio, relaying to the app.

When the app runs, the client's pipes are handed to it (``handoff``) and it serves the session
itself; otherwise, or when the handoff is refused, this process serves it and relays each call.
The handshake era's plain requests are answered by hand (``handshake``); the SDK's server is
imported and opened only for a session that needs it (``sdk_session``). With
``ECHO_DESK_GATEWAY_SDK=1`` the SDK serves every session whole, as before there was a hand path
(for a client that meets a difference; the tests compare the two), in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
from collections.abc import Callable
from typing import Any

from echo_desk.gateway import handoff
from echo_desk.gateway.backend import AppBackend
from echo_desk.gateway.handshake import HandServed
from echo_desk.gateway.stdio import SdkSide, Serving, Wire, claimed_stdio, serve
from echo_desk.gateway.tools_backend import Backend

log = logging.getLogger(__name__)

SDK_ONLY_ENV = "ECHO_DESK_GATEWAY_SDK"


class McpSession:
    """One client's MCP session over a ``Wire``: by hand while it can, then the SDK's server."""

    def __init__(self, backend: Backend, *, by_hand: bool = True) -> None:
        self.backend = backend
        self.hand = HandServed(backend, by_hand=by_hand)
        self._watchers: Any = None  # the SDK's ListWatchers, once the session needs the SDK
        self._told: set[asyncio.Task[Any]] = set()

    def tools_changed(self) -> None:
        if self.hand.mine:
            self.hand.tools_changed()
        elif self._watchers is not None:
            task = asyncio.ensure_future(self._watchers.changed())
            self._told.add(task)
            task.add_done_callback(self._told.discard)

    async def serve(self, wire: Wire, serving: Serving | None = None) -> None:
        async def open_sdk(prelude: list[bytes], drop_id: Any, end: Callable[[], None]) -> SdkSide:
            # ~1.2 s of imports on a worker thread: calls running by hand go on meanwhile.
            await asyncio.to_thread(importlib.import_module, "echo_desk.gateway.sdk_session")
            from echo_desk.gateway.sdk_session import SdkSession
            from echo_desk.gateway.server import ListWatchers

            self._watchers = ListWatchers()
            return await SdkSession.open(self.backend, self._watchers, wire.write, prelude, drop_id, end,
                                         self.hand.busy)

        await serve(wire, self.hand, open_sdk, serving=serving)


async def serve_stdio(backend: AppBackend) -> int:
    """Serve until the client closes stdin (or stops reading), then let the app go. The exit
    status: 1 when the app may have kept the client's pipes (the handoff was not confirmed)."""
    sdk_only = os.environ.get(SDK_ONLY_ENV) == "1"
    unread = b""
    preparing: asyncio.Task[None] | None = None
    try:
        session = McpSession(backend, by_hand=not sdk_only)
        if not sdk_only and handoff.wanted():
            handed = await handoff.offer(backend.path, backend.client, backend.workspace)
            if handed.outcome is handoff.Outcome.LOST:
                log.warning("Echo Desk did not confirm it took the client's pipes; ending (they are not read here)")
                return 1
            if handed.outcome is handoff.Outcome.HANDED:
                return 0
            if handed.outcome is handoff.Outcome.RETURNED:
                log.info("Echo Desk quit and handed the session back; serving it without the app")
                # The person quit the app: it is not started again for this session (it is
                # reconnected to when they open it again).
                backend.launcher = None
                session.hand.resume(handed.by_hand, handed.opening)
                unread = handed.unread
                preparing = asyncio.ensure_future(backend.prepare())
        backend.on_tools_changed = session.tools_changed
        async with claimed_stdio(unread) as wire:
            await session.serve(wire)
        return 0
    finally:
        if preparing is not None:
            preparing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await preparing
        await backend.aclose()
