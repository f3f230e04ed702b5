"""``echo-desk gateway --client NAME``: one client's MCP server on stdio, relaying to the app."""

from __future__ import annotations

import asyncio
from typing import Any

from echo_desk.gateway.backend import AppBackend
from echo_desk.gateway.fast_calls import FastCalls
from echo_desk.gateway.server import Backend, ListWatchers, init_options, mcp_server
from echo_desk.gateway.stdio import capped_stdio


async def serve_stdio(backend: AppBackend) -> None:
    """Serve until the client closes stdin (or stops reading), then let the app go."""
    watchers = ListWatchers()
    told: set[asyncio.Task[Any]] = set()

    def tools_changed() -> None:
        task = asyncio.ensure_future(watchers.changed())
        told.add(task)
        task.add_done_callback(told.discard)

    backend.on_tools_changed = tools_changed

    async def backend_for(_ctx: Any) -> Backend:
        return backend

    server = mcp_server(backend_for, watchers)
    try:
        async with capped_stdio(fast=FastCalls(backend)) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, init_options(server))
    finally:
        await backend.aclose()
