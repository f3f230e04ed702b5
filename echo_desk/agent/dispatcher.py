"""``execute_tool``: the one ordered pipeline every tool call goes through.

unknown → disabled → not granted → not ready / breaker open → parse arguments → refuse hidden
parameters → validate against the schema → inject hidden parameters → preview → approval →
run on a worker (timeout, retries) → breaker bookkeeping → envelope → audit.

Chat, sub-agents, the CLI and replays all call this; no caller has a shortcut around it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any

from echo_desk.agent.audit import AuditLog, AuditRecord
from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.envelope import Envelope, cap_content
from echo_desk.agent.host import ApprovalChoice, ApprovalRequest, Host
from echo_desk.agent.hunks import SELECTION_KEY, SELECTION_MESSAGE_KEY, bind_selection, selection_problem
from echo_desk.agent.model import ToolCall
from echo_desk.agent.policy import (
    APPROVED_BY_PERSON,
    Verdict,
    approval_for,
    effective_risk,
    grant_problem,
    is_enabled,
)
from echo_desk.agent.redact import redact
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.revision import Revision, RevisionRefused, checked_arguments, told_to_model
from echo_desk.agent.schema_checks import compiled_validator, describe_validation_error
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.journal import UndoJournal
from echo_desk.agent.worker import ToolWorkerPool
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS
from echo_desk.tools.context import CancelledByUser, ToolExecutionContext
from echo_desk.tools.results import ErrorKind, RiskLevel, ToolError, ToolPreview, ToolResult

log = logging.getLogger(__name__)

StatusCallback = Callable[[str], None]


class _Stop(Exception):
    """Ends the pipeline early with a failure envelope."""

    def __init__(self, kind: ErrorKind, error: str) -> None:
        super().__init__(error)
        self.kind = kind
        self.error = error


@dataclass
class _Call:
    """What the pipeline learns about one call as it goes; feeds the audit record."""

    call: ToolCall
    scope: Scope
    started: float
    entry: RegisteredTool | None = None
    arguments: Any = None
    decision: str = "not_asked"
    provenance: str = ""
    #: The arguments the person edited and approved (they ran instead of the model's).
    edited_params: dict[str, Any] | None = None


class Dispatcher:
    def __init__(
        self,
        registry: ToolRegistry,
        settings: SettingsStore,
        audit: AuditLog | None,
        breakers: BreakerBoard,
        workers: ToolWorkerPool | None = None,
        undo: UndoJournal | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.audit = audit
        self.breakers = breakers
        self.workers = workers or ToolWorkerPool()
        #: Keeps what each written file held before, for Revert (``None``: no undo).
        self.undo = undo

    async def execute_tool(
        self,
        call: ToolCall,
        scope: Scope,
        host: Host,
        *,
        on_status: StatusCallback | None = None,
    ) -> Envelope:
        """Run one call through the whole pipeline. Never raises, except ``CancelledError``
        (after recording the call as cancelled)."""
        state = _Call(call=call, scope=scope, started=time.perf_counter())
        try:
            envelope = await self._pipeline(state, host, on_status or _ignore)
        except _Stop as stop:
            envelope = Envelope.failure(call.name, call.id, stop.kind, stop.error)
        except asyncio.CancelledError:
            self._record(state, Envelope.failure(call.name, call.id, ErrorKind.CANCELLED, "cancelled"))
            raise
        self._record(state, envelope)
        return envelope

    async def _pipeline(self, state: _Call, host: Host, on_status: StatusCallback) -> Envelope:
        call, scope = state.call, state.scope
        entry = self.registry.get(call.name)
        if entry is None:
            raise _Stop(ErrorKind.UNKNOWN_TOOL, f"unknown tool '{call.name}'")
        state.entry = entry
        tool = entry.tool
        settings = self.settings.current
        if not is_enabled(entry, settings):
            raise _Stop(ErrorKind.DISABLED, f"tool '{call.name}' is disabled in settings")
        risk = effective_risk(entry, settings)
        problem = grant_problem(entry, risk, scope)
        if problem:
            raise _Stop(ErrorKind.NOT_GRANTED, problem)
        if not tool.is_ready():
            raise _Stop(ErrorKind.DEPENDENCY, f"tool '{call.name}' is not ready: {tool.readiness_detail()}")

        params = self._parse_and_validate(state)
        for name in tool.hidden_parameters:
            params[name] = scope.hidden.get(name, "")

        if not self.breakers.try_acquire(call.name):
            status = self.breakers.status(call.name)
            raise _Stop(
                ErrorKind.DEPENDENCY,
                f"tool '{call.name}' is paused after {status.consecutive_failures} failures "
                f"(last: {status.last_error or 'unknown'}); retry in {status.retry_in_seconds:.0f} s",
            )
        ran = False
        try:
            ctx = ToolExecutionContext(
                call_id=call.id,
                tool_name=call.name,
                scope_id=scope.id,
                conversation_id=scope.conversation_id,
                scope_label=scope.label,
                workspace_roots=scope.workspace_roots,
                write_roots=scope.write_roots or (),
                read_only=scope.read_only,
                hidden=dict(scope.hidden),
                host=host,
                # Engine-level tools (``delegate``) need the scope itself; the public contract
                # does not promise it.
                extras={"scope": scope},
            )
            if tool.has_preview:
                preview = await self._run_handler(
                    tool.preview(params, ctx),
                    tool.timeout_seconds,
                    ctx,
                    is_preview=True,
                    inline=entry.offloaded,
                )
                ctx.preview = preview if isinstance(preview, ToolPreview) else None
            await self._approve(state, entry, risk, params, ctx, host, on_status)
            params = state.edited_params if state.edited_params is not None else params
            on_status("running")
            ran = True
            kept = await self.undo.before(ctx) if self.undo else {}
            result = await self._run_with_retries(entry, risk, params, ctx, host)
            if self.undo:
                await self.undo.after(ctx, result, kept)
        finally:
            if not ran:
                self.breakers.release_probe(call.name)
        if state.edited_params is not None:
            visible = {k: v for k, v in params.items() if k not in tool.hidden_parameters}
            result = replace(result, output=told_to_model(visible) + "\n" + result.output)
        if result.success:
            self.breakers.record(call.name, None)
            return Envelope(
                ok=True,
                tool=call.name,
                call_id=call.id,
                content=cap_content(result.output),
                file_changes=result.file_changes,
                metadata=result.metadata,
            )
        assert result.error_kind is not None
        self.breakers.record(call.name, result.error_kind, result.error)
        return Envelope(
            ok=False,
            tool=call.name,
            call_id=call.id,
            content=cap_content(result.output),
            error=result.error,
            error_kind=result.error_kind,
            file_changes=result.file_changes,
            metadata=result.metadata,
        )

    def _parse_and_validate(self, state: _Call) -> dict[str, Any]:
        assert state.entry is not None
        tool, raw = state.entry.tool, state.call.arguments
        try:
            params = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            state.arguments = {"_unparsed": raw[:2000]}
            raise _Stop(ErrorKind.VALIDATION, f"arguments are not valid JSON ({exc.msg} at position {exc.pos})") from None
        state.arguments = params
        if not isinstance(params, dict):
            raise _Stop(ErrorKind.VALIDATION, f"arguments must be a JSON object, got {type(params).__name__}")
        hidden = sorted(set(params) & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)))
        if hidden:
            raise _Stop(
                ErrorKind.VALIDATION,
                f"argument '{hidden[0]}' is not accepted: it is supplied by the application, not the model",
            )
        errors = sorted(compiled_validator(tool.parameters).iter_errors(params), key=lambda e: list(e.path))
        if errors:
            raise _Stop(ErrorKind.VALIDATION, "; ".join(describe_validation_error(e) for e in errors[:5]))
        return params

    async def _approve(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: Mapping[str, Any],
        ctx: ToolExecutionContext,
        host: Host,
        on_status: StatusCallback,
    ) -> None:
        ruling = approval_for(entry, risk, self.settings.current, state.scope, ctx.preview)
        state.provenance = ruling.provenance
        if ruling.verdict is Verdict.DENY:
            state.decision = "denied"
            raise _Stop(ErrorKind.REJECTED, f"tool '{entry.name}' is set to 'Never' in settings")
        if ruling.verdict is Verdict.AUTO:
            state.decision = "auto"
            return
        current = Revision(dict(params), ctx.preview, self._approval_request(state, entry, risk, params, ctx.preview))

        async def revise(arguments: dict[str, Any]) -> ApprovalRequest:
            edited = checked_arguments(entry.tool, arguments)
            for name in entry.tool.hidden_parameters:
                edited[name] = state.scope.hidden.get(name, "")
            preview: ToolPreview | None = None
            if entry.tool.has_preview:
                try:
                    preview = await self._run_handler(entry.tool.preview(edited, ctx), entry.tool.timeout_seconds,
                                                      ctx, is_preview=True, inline=entry.offloaded)
                except _Stop as stop:
                    raise RevisionRefused(stop.error) from None
            if approval_for(entry, risk, self.settings.current, state.scope, preview).verdict is Verdict.DENY:
                raise RevisionRefused("the edited call is refused by the settings or rules")
            request = replace(self._approval_request(state, entry, risk, edited, preview), revise=revise)
            current.params, current.preview, current.request, current.edited = edited, preview, request, True
            return request

        current.request = replace(current.request, revise=revise)
        on_status("awaiting_approval")
        decision = await host.request_approval(current.request)
        # Only the latest version the person saw (re-previewed after an edit) can be approved.
        request = current.request
        if decision.binding != bind_selection(request.binding, decision.selection) or decision.call_id != request.call_id:
            # An answer to something other than what was shown is no answer.
            state.decision = "denied"
            state.provenance = "person: answer did not match the request shown"
            raise _Stop(ErrorKind.REJECTED, "the approval did not match this call; nothing was done")
        if not decision.allowed:
            state.decision = "denied"
            state.provenance = "person: denied"
            message = f": {decision.message}" if decision.message else ""
            raise _Stop(ErrorKind.REJECTED, f"the person denied this call{message}")
        state.decision = "allowed"
        state.provenance = f"person: {decision.choice.value}"
        ctx.extras[APPROVED_BY_PERSON] = True
        if current.edited:
            ctx.preview = current.preview
            state.edited_params = current.params
            shown = redact(current.params, entry.tool.hidden_parameters)
            state.provenance += " (arguments edited by the person: " + json.dumps(shown, ensure_ascii=False,
                                                                                   default=str) + ")"
        if decision.selection is not None:
            problem = selection_problem(decision.selection, request.file_changes)
            if not request.hunk_selectable:
                problem = problem or f"'{entry.name}' cannot write part of its changes"
            if problem:
                state.decision, state.provenance = "denied", f"person: selection refused ({problem})"
                raise _Stop(ErrorKind.REJECTED, f"the hunk selection did not match what was shown: {problem}; "
                                                "nothing was done")
            ctx.extras[SELECTION_KEY] = {p: tuple(sorted(set(i))) for p, i in decision.selection.items()}
            ctx.extras[SELECTION_MESSAGE_KEY] = decision.message
            state.provenance += " (hunks: " + "; ".join(
                f"{p}: {','.join(str(i + 1) for i in sorted(set(h))) or 'none'}" for p, h in decision.selection.items()) + ")"
        if decision.choice is ApprovalChoice.ALLOW_CONVERSATION:
            root = state.scope
            while root.parent is not None:
                root = root.parent
            root.session_grants.add(entry.name)
        elif decision.choice is ApprovalChoice.ALWAYS_ALLOW:
            self.settings.set_tool(entry.name, policy=ToolPolicy.ALWAYS)

    def _approval_request(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: Mapping[str, Any],
        preview: ToolPreview | None,
    ) -> ApprovalRequest:
        targets = preview.targets if preview else ()
        changes = preview.file_changes if preview else ()
        shown = {
            "tool": entry.name,
            "arguments": params,
            "targets": [(t.kind, t.value, t.detail) for t in targets],
            "changes": [(c.path, c.kind.value, c.before_sha256, c.after_sha256) for c in changes],
        }
        binding = hashlib.sha256(
            json.dumps(shown, sort_keys=True, ensure_ascii=False, default=str).encode()
        ).hexdigest()
        visible = {k: v for k, v in params.items() if k not in entry.tool.hidden_parameters}
        return ApprovalRequest(
            call_id=state.call.id,
            tool_name=entry.name,
            tool_title=entry.tool.display_title,
            risk=risk,
            scope_id=state.scope.id,
            scope_label=state.scope.label,
            scope_chain=state.scope.chain,
            arguments=visible,
            targets=targets,
            file_changes=changes,
            summary=preview.summary if preview else "",
            binding=binding,
            source=entry.source,
            hunk_selectable=bool(changes) and getattr(entry.tool, "writes_hunk_selection", False) is True,
            parameters_schema=entry.tool.parameters,
        )

    async def _run_with_retries(
        self,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: dict[str, Any],
        ctx: ToolExecutionContext,
        host: Host,
    ) -> ToolResult:
        tool = entry.tool
        may_retry = risk is RiskLevel.READ or tool.idempotent
        attempts = 1 + (max(0, tool.max_retries) if may_retry else 0)
        result = ToolResult.fail(ErrorKind.INTERNAL, "the tool did not run")
        try:
            for attempt in range(attempts):
                result = await self._run_handler(
                    tool.execute(params, ctx), tool.timeout_seconds, ctx, inline=entry.offloaded
                )
                if result.success or result.error_kind is None or not result.error_kind.is_retryable:
                    break
                if attempt + 1 < attempts:
                    log.info("retrying %s after %s (%d/%d)", tool.name, result.error_kind.value,
                             attempt + 1, attempts - 1)
        finally:
            host.set_activity(None)
        return result

    async def _run_handler(
        self,
        coro: Coroutine[Any, Any, Any],
        timeout: float,
        ctx: ToolExecutionContext,
        *,
        is_preview: bool = False,
        inline: bool = False,
    ) -> Any:
        """Run a handler on a worker thread (``inline``: on this loop, for the engine's own
        offloaded adapters); turn every way it can fail into a ``ToolResult`` (or ``_Stop`` for
        a failed preview). Cancellation reaches the handler and propagates."""
        try:
            if inline:
                async with asyncio.timeout(timeout):
                    result = await coro
            else:
                result = await self.workers.run(coro, timeout)
        except asyncio.CancelledError:
            ctx.cancel_event.set()
            raise
        except TimeoutError:
            ctx.cancel_event.set()
            failure = ToolResult.fail(ErrorKind.TIMEOUT, f"'{ctx.tool_name}' timed out after {timeout:g} s")
        except CancelledByUser as exc:
            failure = ToolResult.fail(ErrorKind.CANCELLED, str(exc) or "cancelled")
        except ToolError as exc:
            failure = ToolResult.fail(exc.kind, exc.message)
        except Exception as exc:
            log.exception("tool %s raised", ctx.tool_name)
            failure = ToolResult.fail(ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}")
        else:
            if is_preview or isinstance(result, ToolResult):
                return result
            return ToolResult.fail(
                ErrorKind.INTERNAL, f"'{ctx.tool_name}' returned {type(result).__name__}, not a ToolResult"
            )
        if is_preview:
            raise _Stop(failure.error_kind or ErrorKind.INTERNAL, f"preview failed: {failure.error}")
        return failure

    def _record(self, state: _Call, envelope: Envelope) -> None:
        if self.audit is None:
            return
        entry = state.entry
        hidden = entry.tool.hidden_parameters if entry else ()
        arguments = state.arguments if state.arguments is not None else {"_raw": state.call.arguments[:2000]}
        self.audit.append(
            AuditRecord(
                at=time.time(),
                conversation_id=state.scope.conversation_id,
                scope_chain=state.scope.chain,
                call_id=state.call.id,
                tool=state.call.name,
                source=entry.source if entry else "",
                arguments=redact(arguments, hidden),
                decision=state.decision,
                provenance=state.provenance,
                ok=envelope.ok,
                error_kind=envelope.error_kind.value if envelope.error_kind else None,
                error=envelope.error,
                duration_ms=(time.perf_counter() - state.started) * 1000,
                file_changes=[
                    {"path": c.path, "kind": c.kind.value, "before_sha256": c.before_sha256,
                     "after_sha256": c.after_sha256}
                    for c in envelope.file_changes
                ],
            )
        )

    def close(self) -> None:
        self.workers.close()


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:24]


def _ignore(_: str) -> None:
    return None
