"""``MCPTool``: one remote tool as an ordinary ``Tool`` in the registry.

The registry name is ``server__tool``; the original name is kept for display and for the
call. The model sees the cleaned description and schema (hidden characters stripped). The
risk is ``exec`` unless the person lowered it in settings: the server's annotations
(``readOnlyHint``...) are shown in the catalog but never lower it on their own; they give the
tool its ``role`` (``tools.roles.role_from_annotations``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from echo_desk.i18n import N_, current_language, deferred, for_person, quoted_later
from echo_desk.mcp.stop_watch import StopWatch
from echo_desk.tools import (
    CancelledByUser,
    ErrorKind,
    RiskLevel,
    Target,
    Tool,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    role_from_annotations,
)

if TYPE_CHECKING:
    from echo_desk.mcp.owner import ToolOwner

class MCPTool(Tool):
    """Base class of the per-tool classes ``make_tool`` builds (class attributes are the contract)."""

    risk_level: ClassVar[RiskLevel] = RiskLevel.EXEC
    capabilities: ClassVar[frozenset[str]] = frozenset({"mcp"})
    server: ClassVar[str] = ""
    original_name: ClassVar[str] = ""
    annotations: ClassVar[dict[str, Any]] = {}
    definition_hash: ClassVar[str] = ""
    #: Code points stripped from the name/description/schema (flagged in the catalog).
    hidden_characters: ClassVar[tuple[str, ...]] = ()
    #: The result's declared shape (``outputSchema``): its ``structuredContent`` must match.
    output_schema: ClassVar[dict[str, Any] | None] = None

    def __init__(self, manager: ToolOwner) -> None:
        self._manager = manager
        #: The last preview made, by (server target, language): it names only the server and
        #: the tool, never the arguments, and is immutable, so every call may share it.
        self._kept_preview: tuple[tuple[str, str], ToolPreview] | None = None

    @property
    def source(self) -> str:
        return f"mcp:{self.server}"

    @property
    def display_icon(self) -> bytes | None:
        return self._manager.icon_of(self.name)

    def is_ready(self) -> bool:
        return not self.readiness_detail()

    def readiness_detail(self) -> str:
        return self._manager.readiness(self.server, self.name)

    def offline_detail(self) -> str:
        """That its server is not connected now (``deferred``); the tool stays offered: a call
        starts the server again. Empty while it is connected."""
        return self._manager.offline_detail(self.server)

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview | None:
        """The approval dialog names the server in full (command line or URL) and the tool."""
        where = self._manager.server_target(self.server)
        key = (where, current_language())
        kept = self._kept_preview
        if kept is None or kept[0] != key:
            made = ToolPreview(
                targets=(Target(kind="server", value=where,
                                detail=deferred(N_("MCP server: {name}"), name=self.server)),),
                summary=deferred(N_("Call “{tool}” on the MCP server “{server}”"), tool=self.original_name,
                                 server=self.server),
            )
            kept = self._kept_preview = (key, made)
        return kept[1]

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        if ctx.preview is not None:
            # The dialog named the server's command line: a server reconfigured while it was
            # open is not the one the person approved this call for.
            where = self._manager.server_target(self.server)
            if [(t.kind, t.value) for t in ctx.preview.targets] != [("server", where)]:
                return ToolResult.fail(ErrorKind.BUSINESS, for_person(
                    f"the MCP server {self.server!r} is {where} now, not the one shown when the call was "
                    "approved (it changed since); nothing was sent",
                    N_("The MCP server {server} changed while you were deciding: it is {where} now. "
                       "Nothing was sent."), server=quoted_later(self.server), where=where))
        here = self._manager.call_here(self.server, self.name, self.original_name, dict(params), ctx)
        if here is not None:
            return await _stoppable_here(here, ctx, self.name)
        # Cancelling this future (the caller was cancelled, or Stop set ctx.cancel_event)
        # cancels the request on the manager's loop, which sends notifications/cancelled.
        call = self._manager.submit_call(self.server, self.name, self.original_name, dict(params), ctx)
        stop = StopWatch(ctx, call)
        try:
            return await call
        except asyncio.CancelledError:
            if stop.stopped:
                raise _stopped_by_person(self.name) from None
            raise
        finally:
            stop.close()
            call.cancel()


async def _stoppable_here(call: Coroutine[Any, Any, ToolResult], ctx: ToolExecutionContext, name: str) -> ToolResult:
    """``call`` awaited by this task itself (on the manager's loop), stopped as a submitted call
    is: Stop (``ctx.cancel_event``) cancels this task while it waits on the server, the request is
    withdrawn (``notifications/cancelled``), and the call ends as the person's cancel."""
    task = asyncio.current_task()
    assert task is not None
    # The watch runs only while this task waits in ``call``: the one place it yields.
    stop = StopWatch(ctx, task)
    try:
        return await call
    except asyncio.CancelledError:
        # Ours alone (nobody else cancelled the task meanwhile): the person's stop, not the caller's.
        if stop.stopped and task.uncancel() == 0:
            raise _stopped_by_person(name) from None
        raise
    finally:
        stop.close()


def _stopped_by_person(name: str) -> CancelledByUser:
    return CancelledByUser(for_person(f"{name} was cancelled", N_("You stopped this call.")))


def make_tool(
    manager: ToolOwner,
    *,
    registry_name: str,
    server: str,
    original_name: str,
    description: str,
    parameters: dict[str, Any],
    title: str,
    annotations: dict[str, Any],
    definition_hash: str,
    hidden_characters: tuple[str, ...],
    risk: RiskLevel,
    timeout: float,
    output_schema: dict[str, Any] | None = None,
) -> MCPTool:
    """A ``MCPTool`` subclass instance carrying one remote tool's (cleaned) definition."""
    attrs: dict[str, Any] = {
        "name": registry_name,
        "description": description,
        "parameters": parameters,
        "title": title,
        "catalog_description": description,
        "server": server,
        "original_name": original_name,
        "annotations": annotations,
        "definition_hash": definition_hash,
        "hidden_characters": hidden_characters,
        "output_schema": output_schema,
        "risk_level": risk,
        # From the server's hints (what a small model is offered), never a lower risk.
        "role": role_from_annotations(annotations),
        # The manager enforces this timeout itself (and cancels on the wire); a little slack
        # here keeps the dispatcher's own timer from firing first.
        "timeout_seconds": timeout + 5.0,
        "idempotent": bool(annotations.get("idempotentHint")) and bool(annotations.get("readOnlyHint")),
    }
    cls: type[MCPTool] = type(f"MCPTool_{registry_name}", (MCPTool,), attrs)
    return cls(manager)
