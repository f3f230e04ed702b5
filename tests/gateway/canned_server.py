"""The MCP side of a tool whose server answers "done" at once, with no wire: the dispatcher's
steps and the audit alone (``tests/gateway/test_call_arguments.py``, ``bench/gateway_sizes.py``)."""

from __future__ import annotations

from typing import Any

from echo_desk.tools import ToolResult


class CannedServer:
    """Answers every call of its tools with "done", at once."""

    def call_here(self, server: str, name: str, original: str, params: dict[str, Any], ctx: object) -> Any:
        async def answer() -> ToolResult:
            return ToolResult.ok("done")
        return answer()

    def server_target(self, server: str) -> str:
        return "canned"

    def readiness(self, server: str, name: str) -> str:
        return ""

    def offline_detail(self, server: str) -> str:
        return ""

    def icon_of(self, name: str) -> bytes | None:
        return None
