"""``execute_tool``: the one ordered pipeline every tool call goes through.

unknown → disabled → not granted → not ready / breaker open → parse arguments → refuse hidden
parameters → validate against the schema → inject hidden parameters → preview → approval →
run on a worker (timeout, retries) → breaker bookkeeping → envelope → audit.

A tool with a preview runs it on a worker; when the approval then turns out automatic, the
same worker goes on to run the call (one round trip instead of two). The ruling is the same
function of the same preview either way, and a call that needs asking comes back first.

Chat, sub-agents, the CLI and replays all call this; no caller has a shortcut around it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import functools
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from echo_desk.agent.bounded import bounded
from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.envelope import DENIED_KEY, Envelope, cap_content
from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, Host, NoOneToAsk
from echo_desk.agent.model import ToolCall
from echo_desk.agent.policy import (
    Ruling,
    Verdict,
    approval_for,
    effective_risk,
    grant_problem,
    is_enabled,
)
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.revision import Revision, RevisionRefused, checked_arguments, told_to_model
from echo_desk.agent.schema_checks import describe_validation_error, validation_errors
from echo_desk.agent.scope import Scope, ScopedContext
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.subagents import SpawnPreview
from echo_desk.agent.undo.journal import UndoJournal
from echo_desk.agent.worker import Deadline, ToolWorkerPool
from echo_desk.common.hunks import bind_selection, selection_problem
from echo_desk.i18n import N_, deferred, for_person, locale_dir_of
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.redact import redact
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS
from echo_desk.tools.context import CancelledByUser, HunkSelection, ToolExecutionContext
from echo_desk.tools.results import ErrorKind, RiskLevel, ToolError, ToolPreview, ToolResult

if TYPE_CHECKING:
    from echo_desk.agent.permissions.engine import PermissionEngine
    from echo_desk.agent.permissions.model import Provenance, Suggestion
    from echo_desk.agent.permissions.model import Verdict as RulesVerdict
    from echo_desk.agent.permissions.subjects import Subject
    from echo_desk.store.grants import Grant, GrantScope

log = logging.getLogger(__name__)


class Decision(enum.StrEnum):
    """How the approval step ended for a call (stored in the audit log as its value)."""

    NOT_ASKED = "not_asked"  # the call stopped before the approval step
    AUTO = "auto"  # allowed without asking (a rule, a grant, a setting or a risk default)
    ALLOWED = "allowed"  # the person allowed it
    DENIED = "denied"  # a rule, a setting or the person refused it


StatusCallback = Callable[[ToolStatus], None]


class _Stop(Exception):
    """Ends the pipeline early with a failure envelope."""

    def __init__(self, kind: ErrorKind, error: str, metadata: dict[str, Any] | None = None) -> None:
        super().__init__(error)
        self.kind = kind
        self.error = error
        self.metadata = metadata


@dataclass
class _Call:
    """What the pipeline learns about one call as it goes; feeds the audit record."""

    call: ToolCall
    scope: Scope
    started: float
    entry: RegisteredTool | None = None
    arguments: Any = None
    decision: Decision = Decision.NOT_ASKED
    provenance: str = ""
    deciding: Provenance | None = None
    #: The arguments the person edited and approved (they ran instead of the model's).
    edited_params: dict[str, Any] | None = None
    #: The call's handler was started (a failure now counts for the breaker).
    ran: bool = False


@dataclass
class _Trip:
    """One worker round trip holding the preview, the ruling and, when that is automatic, the
    first run: filled in on the worker, read by the caller once the trip is over."""

    deadline: Deadline
    rules: RulesVerdict | None = None
    ruling: Ruling | None = None
    kept: dict[str, Any] = field(default_factory=dict)
    result: Any = None

    @property
    def ran(self) -> bool:
        return self.deadline.step > 0


class Dispatcher:
    def __init__(
        self,
        registry: ToolRegistry,
        settings: SettingsStore,
        audit: AuditLog | None,
        breakers: BreakerBoard,
        workers: ToolWorkerPool | None = None,
        permissions: PermissionEngine | None = None,
        undo: UndoJournal | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.audit = audit
        self.breakers = breakers
        self.workers = workers or ToolWorkerPool()
        #: Permission rules and grants; ``None``: settings and risk defaults only.
        self.permissions = permissions
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
            envelope = Envelope.failure(call.name, call.id, stop.kind, stop.error, stop.metadata)
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
        try:
            ctx = ScopedContext(
                call_id=call.id,
                tool_name=call.name,
                scope_id=scope.id,
                conversation_id=scope.conversation_id,
                scope_label=scope.label,
                workspace_roots=scope.workspace_roots + self._attachment_roots(scope, risk, params),
                write_roots=scope.write_roots or (),
                read_only=scope.read_only,
                hidden=dict(scope.hidden),
                host=host,
                scope=scope,
            )
            result = await self._approve_and_run(state, entry, risk, params, ctx, host, on_status)
        finally:
            if not state.ran:
                self.breakers.release_probe(call.name)
        if state.edited_params is not None:
            params = state.edited_params
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

    async def _approve_and_run(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: dict[str, Any],
        ctx: ToolExecutionContext,
        host: Host,
        on_status: StatusCallback,
    ) -> ToolResult:
        """Preview → approval → run (with retries) → undo bookkeeping."""
        tool = entry.tool
        first: ToolResult | None = None  # the first attempt, when the preview's trip took it
        kept: dict[str, Any] = {}
        if tool.has_preview and not entry.offloaded:
            trip = await self._preview_on_worker(state, entry, risk, params, ctx, host, on_status)
            assert trip.ruling is not None
            await self._approve(state, entry, risk, params, ctx, host, on_status, trip.rules, trip.ruling)
            if trip.ran:  # automatic: the worker already took the first attempt
                first, kept = trip.result, trip.kept
        else:
            if tool.has_preview:  # an engine adapter's preview runs on this loop: no hop to save
                preview = await self._run_handler(
                    tool.preview(params, ctx), tool.timeout_seconds, ctx, is_preview=True, inline=True
                )
                ctx.preview = preview if isinstance(preview, ToolPreview) else None
            rules, ruling = self._ruling(state, entry, risk, params, ctx)
            await self._approve(state, entry, risk, params, ctx, host, on_status, rules, ruling)
        if first is None:
            params = state.edited_params if state.edited_params is not None else params
            on_status(ToolStatus.RUNNING)
            state.ran = True
            kept = await self.undo.before(ctx) if self.undo else {}
        result = await self._run_with_retries(entry, risk, params, ctx, host, first=first)
        if self.undo:
            await self.undo.after(ctx, result, kept)
        return result

    def _ruling(self, state: _Call, entry: RegisteredTool, risk: RiskLevel, params: Mapping[str, Any],
                ctx: ToolExecutionContext) -> tuple[RulesVerdict | None, Ruling]:
        """The rules' verdict and the approval ruling on the preview in ``ctx`` (on either thread:
        it reads an immutable settings snapshot and the thread-safe rules engine)."""
        rules = self._rules_verdict(state, entry, params)
        return rules, approval_for(entry, risk, self.settings.current, state.scope, ctx.preview, rules)

    async def _preview_on_worker(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: dict[str, Any],
        ctx: ToolExecutionContext,
        host: Host,
        on_status: StatusCallback,
    ) -> _Trip:
        """One round trip: the preview and its ruling, and the first run when that is automatic.
        A failed preview stops the call as before; a failed first run is that attempt's result."""
        timeout = entry.tool.timeout_seconds
        trip = _Trip(Deadline(timeout))
        loop = asyncio.get_running_loop()

        def running() -> None:  # from the worker: the status listener lives on this loop
            if on_status is not _ignore:
                loop.call_soon_threadsafe(on_status, ToolStatus.RUNNING)

        try:
            await self.workers.run(self._preview_then_run(state, entry, risk, params, ctx, trip, running),
                                   trip.deadline)
        except asyncio.CancelledError:
            ctx.cancel_event.set()
            if trip.ran:
                host.set_activity(None)
            raise
        except (TimeoutError, CancelledByUser, ToolError) as exc:
            trip.result = self._failure(exc, ctx, timeout, is_preview=not trip.ran)
        except Exception as exc:
            log.exception("tool %s raised", ctx.tool_name)
            trip.result = self._failure(exc, ctx, timeout, is_preview=not trip.ran)
        else:
            if trip.ran:
                trip.result = self._checked(trip.result, ctx, is_preview=False)
        finally:
            state.ran = trip.ran  # the round trip is over: no step starts after this
        return trip

    async def _preview_then_run(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: dict[str, Any],
        ctx: ToolExecutionContext,
        trip: _Trip,
        running: Callable[[], None],
    ) -> None:
        """On the worker: what the caller's loop would otherwise do between two round trips."""
        preview = await entry.tool.preview(params, ctx)
        ctx.preview = preview if isinstance(preview, ToolPreview) else None
        trip.rules, trip.ruling = self._ruling(state, entry, risk, params, ctx)
        if trip.ruling.verdict is not Verdict.AUTO or not trip.deadline.next_step():
            return  # asked or refused on the caller's loop; or the caller has given up
        running()
        trip.kept = self.undo.before_here(ctx) if self.undo else {}
        trip.result = await entry.tool.execute(params, ctx)

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
        if not RESERVED_HIDDEN_PARAMETERS.isdisjoint(params) or not params.keys().isdisjoint(tool.hidden_parameters):
            hidden = sorted(set(params) & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)))
            raise _Stop(
                ErrorKind.VALIDATION,
                f"argument '{hidden[0]}' is not accepted: it is supplied by the application, not the model",
            )
        errors = validation_errors(tool.parameters, params)
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
        rules: RulesVerdict | None,
        ruling: Ruling,
    ) -> None:
        """Act on ``ruling`` (worked out from ``rules`` and the preview): refuse, go on, or ask."""
        state.provenance = ruling.provenance
        state.deciding = ruling.deciding
        if ruling.verdict is Verdict.DENY:
            state.decision = Decision.DENIED
            if ruling.deciding is not None:
                raise _Stop(ErrorKind.REJECTED, f"refused by {ruling.provenance}")
            raise _Stop(ErrorKind.REJECTED, f"tool '{entry.name}' is set to 'Never' in settings")
        if ruling.verdict is Verdict.AUTO:
            state.decision = Decision.AUTO
            return
        if rules is None:
            # No rule names this tool, so none could decide; the person is asked anyway, and the
            # rules' view gives the dialog its per-part checks and the narrow rules to offer.
            rules = self._rules_verdict(state, entry, params, for_dialog=True)
        current = Revision(dict(params), ctx.preview,
                           self._approval_request(state, entry, risk, params, ctx.preview, rules))

        revise = self._reviser(state, entry, risk, ctx, current)
        current.request = replace(current.request, revise=revise)
        on_status(ToolStatus.WAITING_APPROVAL)
        try:
            decision = await host.request_approval(current.request)
        except NoOneToAsk as exc:
            state.decision, state.provenance = Decision.DENIED, f"no one to ask: {exc}"
            raise _Stop(ErrorKind.REJECTED, str(exc)) from None
        # Only the latest version the person saw (re-previewed after an edit) can be approved.
        request = current.request
        _check_answer(state, request, decision)
        state.decision = Decision.ALLOWED
        state.provenance = f"person: {decision.choice.value}"
        state.deciding = None
        ctx.approved_by_person = True
        if current.edited:
            ctx.preview = current.preview
            state.edited_params = current.params
            shown = redact(current.params, entry.tool.hidden_parameters)
            state.provenance += " (arguments edited by the person: " + json.dumps(shown, ensure_ascii=False,
                                                                                   default=str) + ")"
        if decision.selection is not None:
            _take_selection(state, entry, request, decision, ctx)
        self._remember(state, entry, decision)

    def _remember(self, state: _Call, entry: RegisteredTool, decision: ApprovalDecision) -> None:
        """Keep what the person chose beyond this call: a grant, or "always allow" in settings."""
        if decision.suggestion is not None and decision.grant_scope is not None and self.permissions is not None:
            self._store_grant(state, decision.suggestion, decision.grant_scope)
        elif decision.choice is ApprovalChoice.ALLOW_CONVERSATION:
            if self.permissions is not None:
                # A visible, revocable grant for the whole tool in this conversation (it
                # never covers a deny, an opaque command or a protected target).
                from echo_desk.agent.permissions.model import GrantScope as Scopes
                from echo_desk.agent.permissions.model import Suggestion as Made

                self._store_grant(state, Made(tool=entry.name, pattern=None, label=entry.name),
                                  Scopes.CONVERSATION)
            else:
                state.scope.root().session_grants.add(entry.name)
        elif decision.choice is ApprovalChoice.ALWAYS_ALLOW:
            self.settings.set_tool(entry.name, policy=ToolPolicy.ALWAYS)

    def _reviser(self, state: _Call, entry: RegisteredTool, risk: RiskLevel, ctx: ToolExecutionContext,
                 current: Revision) -> Callable[[dict[str, Any]], Awaitable[ApprovalRequest]]:
        """What the dialog's "Edit" calls: the edited call validated, previewed and checked again;
        the re-previewed version becomes the only one that can be approved."""

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
            edited_rules = self._rules_verdict(state, entry, edited, for_dialog=True)
            if approval_for(entry, risk, self.settings.current, state.scope, preview,
                            edited_rules).verdict is Verdict.DENY:
                raise RevisionRefused(deferred(N_("the settings or rules refuse the edited call")))
            request = replace(self._approval_request(state, entry, risk, edited, preview, edited_rules),
                              revise=revise)
            current.params, current.preview, current.request, current.edited = edited, preview, request, True
            return request

        return revise

    def _rules_verdict(self, state: _Call, entry: RegisteredTool, params: Mapping[str, Any], *,
                       for_dialog: bool = False) -> RulesVerdict | None:
        """The permission rules' verdict for this call (``None`` when no rule or grant names it,
        unless it is wanted ``for_dialog``: then it is worked out all the same)."""
        engine = self.permissions
        if engine is None:
            return None
        rule_names_for, subject_for, always_evaluated = _subjects()
        roots = state.scope.workspace_roots
        if (not for_dialog and not always_evaluated(entry)
                and not engine.mentions(rule_names_for(entry), roots)):
            return None
        subject = subject_for(entry, params)
        if state.scope.caller:  # rules may name the MCP client calling through the gateway
            subject = replace(subject, client=state.scope.caller)
        cwd = roots[0] / str(params.get("cwd", ".")) if subject.command and roots else None
        try:
            return engine.evaluate(subject, workspaces=roots, conversation_id=state.scope.conversation_id, cwd=cwd)
        except Exception as exc:  # a bug in the rules must not run anything unasked, nor crash the call
            log.exception("permission rules failed for %s", entry.name)
            from echo_desk.agent.permissions.model import Decider, Effect
            from echo_desk.agent.permissions.model import Provenance as Why
            from echo_desk.agent.permissions.model import Verdict as Said

            why = Why(kind=Decider.OPAQUE, detail=f"the permission rules failed ({type(exc).__name__}); asking")
            return Said(effect=Effect.ASK, provenance=why)

    def _attachment_roots(self, scope: Scope, risk: RiskLevel, params: Mapping[str, Any]) -> tuple[Path, ...]:
        """A read tool may reach an outside file or folder the person attached with a read grant
        for this conversation (the rules still decide the call itself)."""
        if risk is not RiskLevel.READ or self.permissions is None:
            return ()
        return _read_roots_for()(self.permissions.active_grants(), scope.conversation_id, params.get("path"))

    def _store_grant(self, state: _Call, suggestion: Suggestion, scope: GrantScope) -> None:
        assert self.permissions is not None
        roots = state.scope.workspace_roots
        try:
            made = self.permissions.grant(suggestion, scope, call_id=state.call.id,
                                          conversation_id=state.scope.conversation_id,
                                          workspace=roots[0] if roots else None)
        except ValueError as exc:  # the call itself was approved; only the grant failed
            log.warning("grant not stored: %s", exc)
            state.provenance += f" (grant not stored: {exc})"
            return
        grant_id = getattr(made, "id", None)
        if grant_id:
            state.provenance += f" (grant {grant_id})"

    def _approval_request(
        self,
        state: _Call,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: Mapping[str, Any],
        preview: ToolPreview | None,
        rules: RulesVerdict | None = None,
    ) -> ApprovalRequest:
        targets = preview.targets if preview else ()
        changes = preview.file_changes if preview else ()
        spawn = preview.spawn if isinstance(preview, SpawnPreview) else None
        shown = {
            "tool": entry.name,
            "arguments": params,
            "targets": [(t.kind, t.value, t.full_detail) for t in targets],
            "changes": [(c.path, c.kind.value, c.before_sha256, c.after_sha256) for c in changes],
            "spawn": dataclasses.asdict(spawn) if spawn is not None else None,
        }
        binding = hashlib.sha256(
            json.dumps(shown, sort_keys=True, ensure_ascii=False, default=str).encode()
        ).hexdigest()
        visible = {k: v for k, v in params.items() if k not in entry.tool.hidden_parameters}
        return ApprovalRequest(
            call_id=state.call.id,
            tool_name=entry.name,
            tool_title=entry.tool.display_title,
            tool_domain=entry.tool.translation_domain,
            tool_locale_dir=locale_dir_of(type(entry.tool)),
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
            spawn=spawn,
            rules=rules,
            hunk_selectable=bool(changes) and entry.tool.writes_hunk_selection is True,
            parameters_schema=entry.tool.parameters,
            not_restorable=self.undo.over_the_cap(changes) if self.undo else (),
            client=state.scope.caller,
        )

    async def _run_with_retries(
        self,
        entry: RegisteredTool,
        risk: RiskLevel,
        params: dict[str, Any],
        ctx: ToolExecutionContext,
        host: Host,
        *,
        first: ToolResult | None = None,
    ) -> ToolResult:
        """``first``: the first attempt's result, when it already ran (on the preview's trip)."""
        tool = entry.tool
        may_retry = risk is RiskLevel.READ or tool.idempotent
        attempts = 1 + (max(0, tool.max_retries) if may_retry else 0)
        try:
            result = first if first is not None else await self._run_handler(
                tool.execute(params, ctx), tool.timeout_seconds, ctx, inline=entry.offloaded
            )
            for attempt in range(1, attempts):
                if result.success or result.error_kind is None or not result.error_kind.is_retryable:
                    break
                log.info("retrying %s after %s (%d/%d)", tool.name, result.error_kind.value, attempt, attempts - 1)
                result = await self._run_handler(
                    tool.execute(params, ctx), tool.timeout_seconds, ctx, inline=entry.offloaded
                )
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
            if inline and is_preview:  # an adapter's preview mostly answers at once: no timer then
                result = await bounded(coro, timeout)
            elif inline:
                async with asyncio.timeout(timeout):
                    result = await coro
            else:
                result = await self.workers.run(coro, timeout)
        except asyncio.CancelledError:
            ctx.cancel_event.set()
            raise
        except (TimeoutError, CancelledByUser, ToolError) as exc:
            return self._failure(exc, ctx, timeout, is_preview=is_preview)
        except Exception as exc:
            log.exception("tool %s raised", ctx.tool_name)
            return self._failure(exc, ctx, timeout, is_preview=is_preview)
        return self._checked(result, ctx, is_preview=is_preview)

    @staticmethod
    def _checked(result: Any, ctx: ToolExecutionContext, *, is_preview: bool) -> Any:
        if is_preview or isinstance(result, ToolResult):
            return result
        return ToolResult.fail(
            ErrorKind.INTERNAL, f"'{ctx.tool_name}' returned {type(result).__name__}, not a ToolResult"
        )

    @staticmethod
    def _failure(exc: Exception, ctx: ToolExecutionContext, timeout: float, *, is_preview: bool) -> ToolResult:
        """What a handler's exception means for the call; a failed preview stops it (``_Stop``)."""
        if isinstance(exc, TimeoutError):
            ctx.cancel_event.set()
            failure = ToolResult.fail(ErrorKind.TIMEOUT, f"'{ctx.tool_name}' timed out after {timeout:g} s")
        elif isinstance(exc, CancelledByUser):
            failure = ToolResult.fail(ErrorKind.CANCELLED, str(exc) or "cancelled")
        elif isinstance(exc, ToolError):
            failure = ToolResult.fail(exc.kind, exc.message)
        else:  # a bug in the tool (logged by the caller)
            failure = ToolResult.fail(ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}")
        if is_preview:
            raise _Stop(failure.error_kind or ErrorKind.INTERNAL,
                        for_person(f"preview failed: {failure.error}", N_("the preview failed: {error}"),
                                   error=failure.error))
        return failure

    def _record(self, state: _Call, envelope: Envelope) -> None:
        """Queue the call's audit record: what it says is fixed here; the copying and redaction
        that build it run on the audit writer thread, off the caller's way back."""
        if self.audit is None:
            return
        entry = state.entry
        arguments = state.arguments if state.arguments is not None else {"_raw": state.call.arguments[:2000]}
        self.audit.append_deferred(partial(
            _audit_record,
            at=time.time(),
            duration_ms=(time.perf_counter() - state.started) * 1000,
            state=_Recorded(state.call.id, state.call.name, state.scope.conversation_id, state.scope.chain,
                            entry.source if entry else "", state.decision, state.provenance, state.deciding,
                            state.scope.caller),
            # The call's own dict, as it is now (the tool has returned: nothing changes it further).
            arguments=dict(arguments) if type(arguments) is dict else arguments,
            hidden=entry.tool.hidden_parameters if entry else (),
            envelope=envelope,
        ))

    def close(self) -> None:
        self.workers.close()


#: Tools whose verdict the floor rules may change even when no rule names them (rm -rf /,
#: writes into Echo Desk's own settings): evaluated on every call.
class _Recorded(NamedTuple):
    """What the audit record says about the call, read on the caller when it ends."""

    call_id: str
    tool: str
    conversation_id: str
    scope_chain: tuple[str, ...]
    source: str
    decision: Decision
    provenance: str
    deciding: Provenance | None
    client: str


def _audit_record(*, at: float, duration_ms: float, state: _Recorded, arguments: Any, hidden: tuple[str, ...],
                  envelope: Envelope) -> AuditRecord:
    """The audit record of a call (on the audit writer thread)."""
    return AuditRecord(
        at=at,
        conversation_id=state.conversation_id,
        scope_chain=state.scope_chain,
        call_id=state.call_id,
        tool=state.tool,
        source=state.source,
        # By key here; by shape in the record's row (long texts cost time).
        arguments=redact(arguments, hidden, shapes=False),
        decision=state.decision.value,
        provenance=state.provenance,
        rule_source=_rule_source(state.deciding),
        grant_id=_grant_id(state.deciding),
        ok=envelope.ok,
        error_kind=envelope.error_kind.value if envelope.error_kind else None,
        error=envelope.error,
        duration_ms=duration_ms,
        file_changes=[
            {"path": c.path, "kind": c.kind.value, "before_sha256": c.before_sha256,
             "after_sha256": c.after_sha256}
            for c in envelope.file_changes
        ],
        client=state.client,
    )


def _rule_source(deciding: Provenance | None) -> str:
    if deciding is None or deciding.rule is None:
        return ""
    return deciding.rule.source.describe()


def _grant_id(deciding: Provenance | None) -> str:
    return deciding.grant.id if deciding is not None and deciding.grant is not None else ""


@functools.cache
def _subjects() -> tuple[Callable[[RegisteredTool], frozenset[str]], Callable[[RegisteredTool, Mapping[str, Any]], Subject],
                        Callable[[RegisteredTool], bool]]:
    """The rules' view of a call, imported on first use: the permission engine (and its shell
    parser) loads only with a dispatcher that has one, and an import per call costs ~3 µs."""
    from echo_desk.agent.permissions.subjects import always_evaluated, rule_names_for, subject_for

    return rule_names_for, subject_for, always_evaluated


@functools.cache
def _read_roots_for() -> Callable[[list[Grant], str, object], tuple[Path, ...]]:
    from echo_desk.agent.attachments.reads import read_roots_for

    return read_roots_for


def new_call_id() -> str:
    # 24 random hex digits, as uuid4().hex[:24] gave, without building a UUID (a third of the time).
    return "call_" + secrets.token_hex(12)


def _ignore(_: ToolStatus) -> None:
    return None


def _check_answer(state: _Call, request: ApprovalRequest, decision: ApprovalDecision) -> None:
    """Refuse an answer to something other than what was shown, and a denial."""
    if decision.binding != bind_selection(request.binding, decision.selection) or decision.call_id != request.call_id:
        # An answer to something other than what was shown is no answer.
        state.decision = Decision.DENIED
        state.provenance = "person: answer did not match the request shown"
        raise _Stop(ErrorKind.REJECTED, "the approval did not match this call; nothing was done")
    if not decision.allowed:
        state.decision = Decision.DENIED
        state.provenance = "person: denied"
        message = f": {decision.message}" if decision.message else ""
        # The card says it in the person's language from the metadata; the model reads the words.
        raise _Stop(ErrorKind.REJECTED, f"the person denied this call{message}",
                    {DENIED_KEY: {"message": decision.message or ""}})


def _take_selection(state: _Call, entry: RegisteredTool, request: ApprovalRequest, decision: ApprovalDecision,
                    ctx: ToolExecutionContext) -> None:
    """The hunks the person checked, if they match what was shown; else nothing is done."""
    assert decision.selection is not None
    problem = (selection_problem(decision.selection, request.file_changes) if request.hunk_selectable
               else f"'{entry.name}' cannot write part of its changes")
    if problem:
        state.decision, state.provenance = Decision.DENIED, f"person: selection refused ({problem})"
        raise _Stop(ErrorKind.REJECTED, f"the hunk selection did not match what was shown: {problem}; "
                                        "nothing was done")
    ctx.hunk_selection = HunkSelection({p: frozenset(i) for p, i in decision.selection.items()}, decision.message)
    numbers = {c.path: {h.id: n for n, h in enumerate(c.hunks, 1)} for c in request.file_changes}
    state.provenance += " (hunks: " + "; ".join(
        f"{p}: {','.join(str(n) for n in sorted(numbers[p][i] for i in set(h))) or 'none'}"
        for p, h in decision.selection.items()) + ")"
