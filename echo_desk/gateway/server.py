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
from typing import Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession

from echo_desk import __version__

log = logging.getLogger(__name__)

Progress = Callable[[str], Awaitable[None]]

INSTRUCTIONS = (
    "Tools offered through Echo Desk. Echo Desk's own rules decide each call; calls that need the "
    "person's approval wait while they decide in Echo Desk's window (progress notifications are "
    "sent meanwhile when you give a progress token). A denied call says so in its result."
)


class Backend(Protocol):
    """Where the tools are: the running app (through the relay) or the in-process fallback."""

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]: ...


BackendFor = Callable[[ServerRequestContext[Any, Any]], Awaitable[Backend]]


class ListWatchers:
    """Sessions that listed tools, to tell when the list changed (held weakly)."""

    def __init__(self) -> None:
        self._sessions: weakref.WeakSet[ServerSession] = weakref.WeakSet()

    def add(self, session: ServerSession) -> None:
        with contextlib.suppress(TypeError):
            self._sessions.add(session)

    async def changed(self) -> None:
        for session in list(self._sessions):
            with contextlib.suppress(Exception):  # a session gone or on an era without it: nothing to tell
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

    return Server("echo-desk", version=__version__, title="Echo Desk", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def init_options(server: Server[Any]) -> Any:
    return server.create_initialization_options(NotificationOptions(tools_changed=True))
