"""The MCP server a client talks to: the SDK's low-level server over a ``Backend``.

``tools/list`` and ``tools/call`` go to the backend (the running app, through the relay, or the
in-process fallback); a call's progress becomes ``notifications/progress`` when the client gave a
progress token; ``notifications/cancelled`` cancels the handler, which withdraws the call in the
app. When the backend says the tools changed, every session that has listed them is sent
``notifications/tools/list_changed``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from echo_desk import __version__
from echo_desk.gateway.handshake import INSTRUCTIONS, SERVER_NAME, SERVER_TITLE
from echo_desk.gateway.tools_backend import Backend

log = logging.getLogger(__name__)

BackendFor = Callable[[ServerRequestContext[Any, Any]], Awaitable[Backend]]


class ListWatchers:
    """Who to tell when the tools changed: connections of the handshake era that listed them
    (``notifications/tools/list_changed``), and 2026-era clients listening through
    ``subscriptions/listen`` (the bus)."""

    def __init__(self) -> None:
        # The SDK makes a session object per request; its connection lives as long as the client
        # stays. Keyed weakly by that connection, the latest session of each is kept to notify on.
        self._sessions: weakref.WeakKeyDictionary[object, ServerSession] = weakref.WeakKeyDictionary()
        self.bus = InMemorySubscriptionBus()

    def add(self, session: ServerSession) -> None:
        with contextlib.suppress(TypeError):
            self._sessions[getattr(session, "_connection", session)] = session

    async def changed(self) -> None:
        await self.bus.publish(ToolsListChanged())
        for session in list(self._sessions.values()):
            if session.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue  # told through its listen stream
            with contextlib.suppress(Exception):  # a session gone: nothing to tell
                await session.send_tool_list_changed()


def mcp_server(backend_for: BackendFor, watchers: ListWatchers) -> Server[Any]:
    """The low-level MCP server answering with ``backend_for(ctx)``'s tools."""

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        backend = await backend_for(ctx)
        watchers.add(ctx.session)
        # Typed results: the SDK fills what each protocol era needs (cache hints, result type).
        return types.ListToolsResult.model_validate({"tools": await backend.list_tools()})

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: Any) -> types.CallToolResult:
        backend = await backend_for(ctx)
        step = itertools.count(1)

        async def progress(text: str) -> None:
            # A no-op when the client gave no progress token.
            await ctx.session.report_progress(float(next(step)), None, text)

        return types.CallToolResult.model_validate(
            await backend.call(params.name, dict(params.arguments or {}), progress))

    return Server(SERVER_NAME, version=__version__, title=SERVER_TITLE, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_subscriptions_listen=ListenHandler(watchers.bus))


def init_options(server: Server[Any]) -> Any:
    return server.create_initialization_options(NotificationOptions(tools_changed=True))
