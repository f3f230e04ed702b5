"""The engine in the gateway's own process, for when the app cannot be reached.

Same settings, rules, grants, audit log and MCP servers as the app (the CLI works the same
way), but no person: a call the rules or settings allow runs; one that needs the person is
refused at once, saying why (``NobodyHost``), instead of waiting for an answer nobody can give.

The engine is ready before its MCP servers are (they take seconds to start): a call waits only for
the server of its own tool (``ready_for``), a built-in for none. A list of the tools waits for all
of them (``all_ready``): a server still starting has not said which tools it has, and a list
without them would tell the client they are gone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.agent.host import ApprovalDecision, ApprovalRequest, NoOneToAsk
from echo_desk.gateway.session import ClientSession, Engine
from echo_desk.gateway.tools_backend import Progress
from echo_desk.tools.host import NullToolHost


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


@dataclass
class LocalBackend:
    """A client's session on an engine in this process (the fallback without the app)."""

    session: ClientSession
    close: Callable[[], Awaitable[None]]
    #: Until the tool named can be called: the MCP server it may be of has started (or failed to).
    ready_for: Callable[[str], Awaitable[None]] = _ready_now
    #: Until every MCP server has started (or failed to).
    all_ready: Callable[[], Awaitable[None]] = _ready_now

    async def list_tools(self) -> list[dict[str, Any]]:
        await self.all_ready()
        return self.session.tools()

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        await self.ready_for(name)
        return await self.session.call(name, arguments, progress)


def local_backend(engine: Engine, client: str, workspace: Path | None, close: Callable[[], Awaitable[None]],
                  why: str, ready_for: Callable[[str], Awaitable[None]] = _ready_now,
                  all_ready: Callable[[], Awaitable[None]] = _ready_now) -> LocalBackend:
    session = ClientSession(engine, NobodyHost(why=why), client, workspace, transport="local")
    return LocalBackend(session, close, ready_for, all_ready)


