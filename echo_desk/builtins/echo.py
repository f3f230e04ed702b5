"""``echo_text``: the smallest tool, used to check the whole pipeline end to end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.builtins.common import BuiltinTool, get_str
from echo_desk.tools import N_, RiskLevel, ToolExecutionContext, ToolResult

MAX_ECHO = 200


class EchoText(BuiltinTool):
    name = "echo_text"
    description = f"Return the given text unchanged (at most {MAX_ECHO} characters). Useful to test tool calling."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_ECHO, "description": "Text to echo back."}
        },
        "required": ["text"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.READ
    timeout_seconds = 5.0
    idempotent = True
    capabilities = frozenset({"basic"})
    title = N_("Echo text")
    catalog_description = N_("Repeats a short text back unchanged. Handy for checking that tools work.")

    async def run(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(get_str(params, "text", max_len=MAX_ECHO))
