"""Shared pieces of the built-in tools: argument checks and the error-to-result funnel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from echo_desk.tools import ErrorKind, Tool, ToolError, ToolExecutionContext, ToolResult


def bad(message: str) -> ToolError:
    return ToolError(message, kind=ErrorKind.VALIDATION)


def get_str(
    params: Mapping[str, Any],
    name: str,
    *,
    max_len: int,
    required: bool = True,
    allow_empty: bool = False,
    default: str = "",
) -> str:
    """A string argument, checked even when the dispatcher's schema validation was skipped."""
    if name not in params or params[name] is None:
        if required:
            raise bad(f"missing required argument '{name}'")
        return default
    value = params[name]
    if not isinstance(value, str):
        raise bad(f"'{name}' must be a string")
    if not value and not allow_empty:
        raise bad(f"'{name}' must not be empty")
    if len(value) > max_len:
        raise bad(f"'{name}' is {len(value)} characters; the limit is {max_len}")
    return value


def get_int(params: Mapping[str, Any], name: str, *, default: int, low: int, high: int) -> int:
    value = params.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(f"'{name}' must be an integer")
    if not low <= value <= high:
        raise bad(f"'{name}' must be between {low} and {high}")
    return value


def get_bool(params: Mapping[str, Any], name: str, *, default: bool) -> bool:
    value = params.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise bad(f"'{name}' must be true or false")
    return value


def reject_unknown(params: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    known = set(schema.get("properties", {}))
    extra = sorted(set(params) - known)
    if extra:
        raise bad(f"unknown argument(s): {', '.join(extra)}")


def require_writable(ctx: ToolExecutionContext, what: str) -> None:
    """Write and exec tools refuse in a read-only scope."""
    if ctx.read_only or not ctx.write_roots:
        raise ToolError(f"this scope is read-only: {what} is not allowed here", kind=ErrorKind.BUSINESS)


class BuiltinTool(Tool):
    """A ``Tool`` whose ``run`` may raise ``ToolError``; ``execute`` turns it into a result."""

    async def run(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        raise NotImplementedError

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        try:
            reject_unknown(params, self.parameters)
            return await self.run(params, ctx)
        except ToolError as exc:
            return ToolResult.fail(exc.kind, exc.message)
