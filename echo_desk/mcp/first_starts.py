"""The MCP servers' first starts, each on its own, for a process that must answer soon after it
starts (the gateway's own engine, when the app quit and handed a session back).

Started all at once and awaited together, the slowest server decided when any tool could be
called. Here each server's first start is a task of its own, and a call waits only for the servers
whose tools its name may be of (``sanitize.may_name_a_tool_of``): a built-in, or a tool of a
server already started, waits for none. A list of the tools waits for them all only for a while
(``fallback.LIST_WAIT_SECONDS``): ``still_starting`` says which it was answered without.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from echo_desk.mcp.sanitize import may_name_a_tool_of

if TYPE_CHECKING:
    from echo_desk.mcp.manager import McpManager

log = logging.getLogger(__name__)


class FirstStarts:
    """Every enabled server of ``manager`` starting, each on its own task (on the running loop,
    which must be the manager's)."""

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager
        self._starting = {name: asyncio.ensure_future(manager.start(name))
                          for name, config in manager.configs().items() if config.enabled}
        for task in self._starting.values():
            task.add_done_callback(_retrieved)

    async def for_tool(self, name: str) -> None:
        """Until the servers whose tool ``name`` may be have each started, or failed to (at once
        when it is registered already: its server has started)."""
        registry = self.manager.registry
        if registry is not None and registry.get(name) is not None:
            return
        await _until_done([task for server, task in self._starting.items() if may_name_a_tool_of(server, name)])

    async def every(self) -> None:
        """Until every server has started or failed to (a full list of the tools needs them all)."""
        await _until_done(list(self._starting.values()))

    def still_starting(self) -> list[str]:
        """The servers whose first start is still under way, by name."""
        return sorted(name for name, task in self._starting.items() if not task.done())

    async def aclose(self) -> None:
        """Stop the starts still under way (the manager's close then ends their servers)."""
        for task in self._starting.values():
            task.cancel()
        for task in self._starting.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _until_done(tasks: list[asyncio.Future[Any]]) -> None:
    # ``wait``, not ``gather``: a call withdrawn while it waits must not cancel a server's start.
    pending = [task for task in tasks if not task.done()]
    if pending:
        await asyncio.wait(pending)


def _retrieved(task: asyncio.Future[Any]) -> None:
    # A server that fails to start says so on its row (``McpManager._start``); what escapes that is a bug.
    if not task.cancelled() and task.exception() is not None:
        log.error("an MCP server's start failed", exc_info=task.exception())
