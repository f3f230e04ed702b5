"""The engine in the gateway's own process, for when the app cannot be reached.

Same settings, rules, grants, audit log and MCP servers as the app (the CLI works the same
way), but no person: a call the rules or settings allow runs; one that needs the person is
refused at once, saying why (``NobodyHost``), instead of waiting for an answer nobody can give.

The engine is ready before its MCP servers are (they take seconds to start): a call waits only for
the server of its own tool (``ready_for``), a built-in for none. A list of the tools waits for all
of them (``all_ready``), but only ``LIST_WAIT_SECONDS`` from the client's request (the seconds this
engine took to start, when the list started it, count): one server whose start is slow or hangs
held every list, and clients give up on a list long before a hung start is given up (20 s). Past
it the list holds the servers that have started; which were left out is logged and recorded in
the audit log (the Activity tab says it), and once they have started the client is told its tools
changed (``notifications/tools/list_changed``), so it lists them again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echo_desk.agent.host import ApprovalDecision, ApprovalRequest, NoOneToAsk
from echo_desk.gateway.left_out import LeftOut
from echo_desk.gateway.session import ClientSession, Engine
from echo_desk.gateway.tools_backend import Progress
from echo_desk.tools.host import NullToolHost

#: How long a list of the tools waits for MCP servers still starting. Most start within it; a
#: client's own wait for the list is longer (the TypeScript SDK's 60 s) but some clients give up
#: on a server that is slow to list its tools after ~10 s.
LIST_WAIT_SECONDS = 5.0


@dataclass
class NobodyHost(NullToolHost):
    """No person to ask (the app is not running): every approval is refused at once, saying why."""

    why: str = "Echo Desk is not running"

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        raise NoOneToAsk(
            f"{self.why}, so no one can approve this call of {request.tool_name}. Open Echo Desk "
            "(run echo-desk) and call again; calls that Echo Desk's rules allow run without it."
        )

    async def approve_server_start(self, request: object) -> bool:
        return False  # an MCP server's first start is approved in the app, never here


async def _ready_now(_name: str = "") -> None:
    return None


def _none_starting() -> list[str]:
    return []


@dataclass
class LocalBackend:
    """A client's session on an engine in this process (the fallback without the app)."""

    session: ClientSession
    close: Callable[[], Awaitable[None]]
    #: Until the tool named can be called: the MCP server it may be of has started (or failed to).
    ready_for: Callable[[str], Awaitable[None]] = _ready_now
    #: Until every MCP server has started (or failed to).
    all_ready: Callable[[], Awaitable[None]] = _ready_now
    #: The servers whose start is still under way, by name.
    still_starting: Callable[[], list[str]] = _none_starting
    list_wait: float = LIST_WAIT_SECONDS
    #: Told when the tools changed since the client listed them (the gateway's session sends
    #: ``notifications/tools/list_changed``).
    on_tools_changed: Callable[[], None] | None = None
    _late: asyncio.Task[None] | None = field(default=None, init=False)
    _left_out: LeftOut = field(init=False)

    def __post_init__(self) -> None:
        # Said on the gateway's stderr, which its client keeps in its own log.
        self._left_out = LeftOut(self.session.client, logging.WARNING)
        closing = self.close

        async def close() -> None:  # a closed engine's tools are not news to the client
            if self._late is not None:
                self._late.cancel()
            await closing()

        self.close = close

    def watch_tools(self, changed: Callable[[], None]) -> None:
        self.on_tools_changed = changed

    async def list_tools(self, asked_at: float | None = None) -> list[dict[str, Any]]:
        """The tools, waiting for servers still starting until ``list_wait`` seconds after the
        client asked (``asked_at``, in the loop's time; now when not given): when the list is
        what made this engine start, the seconds that took count toward the wait."""
        asked = asyncio.get_running_loop().time() if asked_at is None else asked_at
        try:
            async with asyncio.timeout_at(asked + self.list_wait):
                await self.all_ready()
        except TimeoutError:
            pass  # answered without the servers still starting; the client hears of them later
        tools = self.session.tools()
        starting = self.still_starting()
        self._left_out.listed(starting, self.session.engine.dispatcher.audit)
        if starting and (self._late is None or self._late.done()):
            self._late = asyncio.ensure_future(self._tell_when_started(tools))
        return tools

    async def _tell_when_started(self, listed: list[dict[str, Any]]) -> None:
        await self.all_ready()
        if self.session.tools() != listed and self.on_tools_changed is not None:
            self.on_tools_changed()

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        await self.ready_for(name)
        return await self.session.call(name, arguments, progress)


def local_backend(engine: Engine, client: str, workspace: Path | None, close: Callable[[], Awaitable[None]],
                  why: str, ready_for: Callable[[str], Awaitable[None]] = _ready_now,
                  all_ready: Callable[[], Awaitable[None]] = _ready_now,
                  still_starting: Callable[[], list[str]] = _none_starting) -> LocalBackend:
    session = ClientSession(engine, NobodyHost(why=why), client, workspace, transport="local")
    return LocalBackend(session, close, ready_for, all_ready, still_starting)


