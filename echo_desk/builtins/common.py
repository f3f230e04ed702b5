"""Shared pieces of the built-in tools: their base class (typed arguments, the error-to-result
funnel) and the checks they share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from echo_desk.builtins.arguments import A, TakesArguments
from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, Tool, ToolError, ToolExecutionContext, ToolPreview, ToolResult


def bad(message: str) -> ToolError:
    """A validation error; ``message`` comes from ``for_person`` (the person reads it on the card)."""
    return ToolError(message, kind=ErrorKind.VALIDATION)


def require_writable(ctx: ToolExecutionContext, what: str) -> None:
    """Write and exec tools refuse in a read-only scope."""
    if ctx.read_only or not ctx.write_roots:
        raise ToolError(for_person(f"this scope is read-only: {what} is not allowed here",
                                   N_("This conversation may only read: {tool} is not allowed here."), tool=what),
                        kind=ErrorKind.BUSINESS)


class BuiltinTool(TakesArguments[A], Tool):
    """A built-in: its ``arguments`` model is the one declaration of what it takes (the schema
    the model sees is made from it); ``execute_parsed`` and ``preview_parsed`` get the typed
    values and may raise ``ToolError``, which becomes a failed result (a failed preview stops
    the call)."""

    async def execute_parsed(self, args: A, ctx: ToolExecutionContext) -> ToolResult:
        raise NotImplementedError

    async def preview_parsed(self, args: A, ctx: ToolExecutionContext) -> ToolPreview | None:
        return None

    @property
    def has_preview(self) -> bool:
        return type(self).preview_parsed is not BuiltinTool.preview_parsed

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview | None:
        return await self.preview_parsed(self.parse(params), ctx)

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        try:
            return await self.execute_parsed(self.parse(params), ctx)
        except ToolError as exc:
            return ToolResult.fail(exc.kind, exc.message)
