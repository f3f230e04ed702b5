"""What the MCP package's parts need from the manager that owns them, as protocols.

The manager builds the tools, the call router and the registration and hands itself to them;
they name these protocols instead of importing ``manager``, which imports them — so the
package's imports run one way (manager → parts → owner), and each part says exactly what it
asks of the manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Coroutine

    from echo_desk.mcp.config import ServerConfig
    from echo_desk.mcp.connection import ServerConnection
    from echo_desk.mcp.status import ServerStatus
    from echo_desk.tools import ToolExecutionContext, ToolHost, ToolResult
    from echo_desk.tools.planted import Planted


class ToolOwner(Protocol):
    """What an MCP tool asks of its manager: whether it may run, where it runs, and the call."""

    def readiness(self, server: str, registry_name: str) -> str:
        """Why the tool cannot be offered now; empty if it can."""
        ...

    def offline_detail(self, server: str) -> str:
        """That the tool's server is not connected now though its tools stay listed; empty when it is."""
        ...

    def server_target(self, name: str) -> str: ...

    def icon_of(self, key: str) -> bytes | None: ...

    def submit_call(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> asyncio.Future[ToolResult]: ...

    def call_here(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> Coroutine[Any, Any, ToolResult] | None: ...


class CallOwner(Protocol):
    """What the call router asks of the manager: a live connection, and what to do when it fails."""

    host: ToolHost | None

    def readiness(self, server: str, registry_name: str) -> str: ...

    async def ensure_connection(self, name: str) -> ServerConnection | None: ...

    def status(self, name: str) -> ServerStatus: ...

    def config_of(self, name: str) -> ServerConfig: ...

    def declares_output_schema(self, server: str, registry_name: str) -> bool: ...

    def sign_in_needed(self, name: str, conn: ServerConnection) -> bool: ...

    def connection_failed(self, name: str, conn: ServerConnection, reason: str) -> None: ...

    def take_left(self, name: str) -> tuple[Planted, ...]: ...

    def take_recorded(self, name: str, taken: tuple[Planted, ...]) -> frozenset[Planted]: ...
