"""What a gateway session asks for its tools: the ``Backend`` (the running app through the relay,
or the in-process fallback). Stdlib only, so the gateway process can serve a session without
importing the MCP SDK."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

#: Tells the client how a call is going (``notifications/progress``; a no-op without a token).
Progress = Callable[[str], Awaitable[None]]


class Backend(Protocol):
    """Where the tools are: the running app (through the relay) or the in-process fallback."""

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]: ...
