"""``execute_tool``: the one ordered pipeline every tool call goes through.

unknown → disabled → not granted → not ready / breaker open → parse arguments → refuse hidden
parameters → validate against the schema → inject hidden parameters → preview → approval →
run on a worker (timeout, retries) → breaker bookkeeping → envelope → audit.

This module keeps the order; the steps live in ``echo_desk.agent.pipeline`` and share one
per-call object (``Call``, with the ``CallRecord`` the audit record is made from).

A tool with a preview runs it on a worker; when the approval then turns out automatic, the
same worker goes on to run the call (one round trip instead of two). The ruling is the same
function of the same preview either way, and a call that needs asking comes back first.

Chat, sub-agents, the CLI and replays all call this; no caller has a shortcut around it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.envelope import UNDO_NOT_RECORDED_KEY, Envelope, StoppedCall, cap_content
from echo_desk.agent.host import Host
from echo_desk.agent.late_checks_told import LateFindings
from echo_desk.agent.model import ToolCall
from echo_desk.agent.pipeline.approval import approve, attachment_roots, ruling
from echo_desk.agent.pipeline.audit_record import begin, record_call
from echo_desk.agent.pipeline.call import Call, CallRecord, CallStopped, StatusCallback, ignore_status
from echo_desk.agent.pipeline.checks import acquire_breaker, admitted, parsed_arguments, still_admitted
from echo_desk.agent.pipeline.execution import preview_on_worker, run_preview, run_with_retries
from echo_desk.agent.pipeline.kept_verdicts import KeptVerdicts
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.revision import told_to_model
from echo_desk.agent.scope import Scope, ScopedContext
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.undo.journal import UndoJournal
from echo_desk.agent.worker import ToolWorkerPool
from echo_desk.common.storable import storable_text
from echo_desk.i18n import N_, for_person
from echo_desk.store.audit import AuditLog
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.results import ErrorKind, ToolError, ToolResult

if TYPE_CHECKING:
    from echo_desk.agent.permissions.engine import PermissionEngine

log = logging.getLogger(__name__)

#: How long a call stopped while its handler ran waits for the handler to end, so that what it
#: changed meanwhile is recorded: it was cancelled, and most handlers end at their next ``await``.
STOPPED_HANDLER_WAIT_SECONDS = 5.0
#: How long an answer waits for its call's audit record (``recorded``): a stalled disk must not
#: hang it.
AUDIT_WAIT_SECONDS = 10.0

#: What a stopped handler left when it told nothing (its changes, if any, are added).
_STOPPED = ToolResult.fail(ErrorKind.CANCELLED, for_person("stopped while it ran", N_("You stopped this call.")))


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
        #: MCP calls' allows, reused while nothing they were worked out from changed.
        self.kept_verdicts = KeptVerdicts()
        #: What late sandbox checks found, owed to the model's next turn (``late_checks_told``).
        self.late_findings = LateFindings()

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
        record = CallRecord(call=call, scope=scope, started=time.perf_counter())
        try:
            envelope = await self._pipeline(record, host, on_status or ignore_status)
        except CallStopped as stop:
            envelope = Envelope.failure(call.name, call.id, stop.kind, stop.error, stop.metadata)
        except asyncio.CancelledError:
            stopped = _stopped_envelope(call, record.left)
            record_call(self.audit, record, stopped)
            if record.left is None:  # it never ran: nothing it left to show
                raise
            raise StoppedCall(stopped) from None
        record_call(self.audit, record, envelope)
        return envelope

    async def recorded(self, what: str) -> None:
        """Until every audit record queued so far (the calls that ended: ``execute_tool`` queues
        each as it ends) is written, so that an answer never goes out before its record is safe
        from a crash of this process (the writer batches for up to 20 ms: a crash right after
        an answer lost 5 of 5 records, s179). Logged, not raised, after ``AUDIT_WAIT_SECONDS``;
        ``what``: the call, for that log line. At once when every record is in the audit journal
        (``AuditLog.safe``): no thread hop, no future."""
        if self.audit is None or self.audit.safe():
            return
        loop = asyncio.get_running_loop()
        written: asyncio.Future[bool] = loop.create_future()

        def settle(in_time: bool) -> None:
            if not written.done():
                written.set_result(in_time)

        # (A callback, not a concurrent future: this runs on every call, and its locks cost more.)
        self.audit.written(partial(loop.call_soon_threadsafe, settle, True))
        late = loop.call_later(AUDIT_WAIT_SECONDS, settle, False)
        try:
            in_time = await written
        finally:
            late.cancel()
        if not in_time:
            log.error("the audit record of %s was not written within %g s; answering anyway", what, AUDIT_WAIT_SECONDS)

    async def _pipeline(self, record: CallRecord, host: Host, on_status: StatusCallback) -> Envelope:
        entry, risk = admitted(record, self.registry, self.settings.current)
        params = parsed_arguments(record, entry)
        name, scope = entry.name, record.scope
        acquire_breaker(self.breakers, name)
        try:
            ctx = ScopedContext(
                call_id=record.call.id,
                tool_name=name,
                scope_id=scope.id,
                conversation_id=scope.conversation_id,
                scope_label=scope.label,
                workspace_roots=scope.workspace_roots + attachment_roots(self.permissions, scope, risk, params),
                write_roots=scope.write_roots or (),
                read_only=scope.read_only,
                hidden=dict(scope.hidden),
                host=host,
                held_by=scope.delegate_calls,
                scope=scope,
            )
            call = Call(record, entry, risk, params, ctx, host, on_status, self)
            result = await self._approve_and_run(call)
        finally:
            if not record.ran:
                self.breakers.release_probe(name)
        if call.edited:
            visible = {k: v for k, v in call.params.items() if k not in entry.tool.hidden_parameters}
            result = replace(result, output=told_to_model(visible) + "\n" + result.output)
        if result.success:
            self.breakers.record(name, None)
        else:
            self.breakers.record(name, result.error_kind, result.error)
        return _envelope(record.call, result)

    async def _approve_and_run(self, call: Call) -> ToolResult:
        """Preview → approval → run (with retries) → undo bookkeeping, also for a call stopped
        (cancelled, or out of time) while its handler ran: what it changed is recorded."""
        undo = call.services.undo
        try:
            result = await self._approve_and_run_handler(call)
        except asyncio.CancelledError:
            if call.record.ran:
                left = await self._left_by_stopped_handler(call, undo)
                if undo:
                    await undo.after(call.ctx, left, call.kept)
                call.record.left = left
            raise
        if call.record.ran and result.error_kind is ErrorKind.TIMEOUT:
            result = _with_what_it_left(result, await self._left_by_stopped_handler(call, undo))
        if undo:
            not_recorded = await undo.after(call.ctx, result, call.kept)
            if not_recorded is not None:
                result = replace(result, metadata={**result.metadata, UNDO_NOT_RECORDED_KEY: not_recorded})
        return result

    async def _approve_and_run_handler(self, call: Call) -> ToolResult:
        tool, undo = call.tool, call.services.undo
        first: ToolResult | None = None  # the first attempt, when the preview's trip took it
        if tool.has_preview and not call.entry.offloaded:
            trip = await preview_on_worker(call, ruling)
            assert trip.ruling is not None
            await approve(call, trip.rules, trip.ruling)
            if trip.ran:  # automatic: the worker already took the first attempt
                first = trip.result
        else:
            if tool.has_preview:  # an engine adapter's preview runs on this loop: no hop to save
                call.ctx.preview = await run_preview(call, call.params, inline=True)
            rules, ruled = self.kept_verdicts.ruling(call, ruling)
            await approve(call, rules, ruled)
        if first is None and call.ctx.approved_by_person:
            # The person took their time: what they allowed must still be there, as it was (and
            # still offered to the caller: a client's profile may have hidden it meanwhile).
            call.record.scope.grant_again()
            call.entry = still_admitted(call.record, call.entry, call.risk, self.registry, self.settings.current)
        if first is None:
            call.on_status(ToolStatus.RUNNING)
            call.record.ran = True
            # While the handler runs: an offloaded one's (on this loop) once it first waits, as
            # the next turn of the loop would, without that turn.
            call.at_first_wait = begin(self.audit, call.record, at_first_wait=call.entry.offloaded)
            try:
                call.kept = await undo.before(call.ctx) if undo else {}
            except ToolError as refused:  # Revert's copy could not be kept: nothing is changed
                return ToolResult.fail(refused.kind, refused.message)
        return await run_with_retries(call, first)

    @staticmethod
    async def _left_by_stopped_handler(call: Call, undo: UndoJournal | None) -> ToolResult:
        """What a handler stopped while it ran left: its own account when it still returned one
        (it may finish a write before it sees the cancel; a sandboxed command says what it tried
        to plant), else what the files it was to change show now against what was kept of them.
        Waits (bounded) for it to end: what it does after that is not recorded, and that is logged."""
        handler = call.handler
        if handler is None or not (call.kept or call.tool.reports_when_stopped):
            return _STOPPED
        if not await handler.end(STOPPED_HANDLER_WAIT_SECONDS):
            log.warning("%s (%s) still runs %g s after it was stopped: a change it makes now is not recorded",
                        call.name, call.record.call.id, STOPPED_HANDLER_WAIT_SECONDS)
        elif isinstance(handler.returned, ToolResult):
            return handler.returned
        if undo is None or not call.kept:  # nothing previewed: nothing to compare with
            return _STOPPED
        changed = await asyncio.to_thread(undo.changed_since, call.kept)
        return replace(_STOPPED, file_changes=changed)

    def close(self) -> None:
        self.workers.close()


def _envelope(call: ToolCall, result: ToolResult) -> Envelope:
    # What the model reads, as text every request takes: a file name that is not UTF-8 (``list_dir``
    # of such a folder) would stop the next request to the model. The metadata is the card's
    # (never the model's); the conversation store makes it storable when it keeps it.
    content = storable_text(cap_content(result.output))
    if result.success:
        return Envelope(ok=True, tool=call.name, call_id=call.id, content=content,
                        file_changes=result.file_changes, metadata=result.metadata, planted=result.planted,
                        planted_in=result.planted_in, later_check=result.later_check,
                        folders_checked=result.folders_checked)
    assert result.error_kind is not None
    return Envelope(ok=False, tool=call.name, call_id=call.id, content=content,
                    error=storable_text(result.error), error_kind=result.error_kind, file_changes=result.file_changes,
                    metadata=result.metadata, planted=result.planted, planted_in=result.planted_in,
                    later_check=result.later_check, folders_checked=result.folders_checked)


def _stopped_envelope(call: ToolCall, left: ToolResult | None) -> Envelope:
    """A call cancelled while it ran, as recorded and shown: cancelled whatever its handler still
    returned (a cancel is never a success), with what it left; in its own words when it said
    how it was stopped."""
    if left is None:
        return Envelope.failure(call.name, call.id, ErrorKind.CANCELLED, "cancelled")
    if left.error_kind is not ErrorKind.CANCELLED:
        left = _with_what_it_left(_STOPPED, left)
    return _envelope(call, left)


def _with_what_it_left(result: ToolResult, left: ToolResult) -> ToolResult:
    """``result`` (how the call ended) with what its stopped handler ``left``: the files and
    folders it changed, what it tried to plant (or the check still to come), and its metadata
    under ``result``'s own."""
    return replace(result, file_changes=left.file_changes, folders_created=left.folders_created,
                   folders_removed=left.folders_removed, removed_folder_modes=left.removed_folder_modes,
                   metadata={**left.metadata, **result.metadata}, planted=left.planted,
                   planted_in=left.planted_in, later_check=left.later_check, folders_checked=left.folders_checked)


def new_call_id() -> str:
    # 24 random hex digits, as uuid4().hex[:24] gave, without building a UUID; the system's random
    # bytes as ``secrets.token_hex`` takes them, without its three Python calls around them.
    return "call_" + os.urandom(12).hex()
