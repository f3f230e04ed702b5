"""The engine in the gateway's own process, for when the app cannot be reached.

Same settings, rules, grants, audit log and MCP servers as the app (the CLI works the same
way), but no person: a call the rules or settings allow runs; one that needs the person is
refused at once, saying why (``NobodyHost``), instead of waiting for an answer nobody can give.
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


@dataclass
class LocalBackend:
    """A client's session on an engine in this process (the fallback without the app)."""

    session: ClientSession
    close: Callable[[], Awaitable[None]]

    async def list_tools(self) -> list[dict[str, Any]]:
        return self.session.tools()

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        return await self.session.call(name, arguments, progress)


def local_backend(engine: Engine, client: str, workspace: Path | None,
                  close: Callable[[], Awaitable[None]], why: str) -> LocalBackend:
    return LocalBackend(ClientSession(engine, NobodyHost(why=why), client, workspace, transport="local"), close)


