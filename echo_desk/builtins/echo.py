"""``echo_text``: the smallest tool, used to check the whole pipeline end to end."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool
from echo_desk.tools import N_, RiskLevel, ToolExecutionContext, ToolResult, ToolRole

MAX_ECHO = 200


class EchoArguments(Arguments):
    text: Annotated[str, Field(min_length=1, max_length=MAX_ECHO, description="Text to echo back.")]


class EchoText(BuiltinTool[EchoArguments]):
    name = "echo_text"
    role = ToolRole.NOTE
    description = f"Return the given text unchanged (at most {MAX_ECHO} characters). Useful to test tool calling."
    arguments = EchoArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 5.0
    idempotent = True
    capabilities = frozenset({"basic"})
    title = N_("Echo text")
    catalog_description = N_("Repeats a short text back unchanged. Handy for checking that tools work.")

    async def execute_parsed(self, args: EchoArguments, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(args.text)
