"""Running a call's handlers: the preview and the run on a worker thread (or on this loop for
the engine's own offloaded adapters), under the tool's time limit, with retries.

Every way a handler can fail becomes a ``ToolResult``; a failed preview stops the call
(``CallStopped``). Cancellation reaches the handler and propagates.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from echo_desk.agent.bounded import bounded
from echo_desk.agent.pipeline.call import Call, CallStopped, Decision, ignore_status
from echo_desk.agent.pipeline.handler import Handler
from echo_desk.agent.policy import ApprovalVerdict, Ruling
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.worker import Deadline
from echo_desk.i18n import N_, Deferred, for_person, quoted_later
from echo_desk.tools.context import CancelledByUser
from echo_desk.tools.results import ErrorKind, RiskLevel, ToolError, ToolPreview, ToolResult

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Verdict as RulesVerdict

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The ruling on a call's preview (in ``call.ctx.preview``): the rules' verdict and the approval.
RulingFn = Callable[[Call], tuple["RulesVerdict | None", Ruling]]

_HANDLER_FAILURES = (TimeoutError, CancelledByUser, ToolError)


@dataclass
class Trip:
    """One worker round trip holding the preview, the ruling and, when that is automatic, the
    first run: filled in on the worker, read by the caller once the trip is over."""

    deadline: Deadline
    rules: RulesVerdict | None = None
    ruling: Ruling | None = None
    #: The first run's result (``None`` when the trip did not run the call).
    result: ToolResult | None = None

    @property
    def ran(self) -> bool:
        return self.deadline.step > 0


async def run_preview(call: Call, params: dict[str, Any], *, inline: bool) -> ToolPreview | None:
    """The tool's preview of ``params`` (``None`` when it shows nothing); a failure stops the call."""
    try:
        preview = await _awaited(call, call.tool.preview(params, call.ctx), inline=inline)
    except _HANDLER_FAILURES as exc:
        raise _preview_failed(failure_of(exc, call)) from None
    except Exception as exc:
        log.exception("tool %s raised", call.name)
        raise _preview_failed(failure_of(exc, call)) from None
    return preview if isinstance(preview, ToolPreview) else None


async def run_once(call: Call) -> ToolResult:
    """One attempt at the call."""
    tool, ctx = call.tool, call.ctx
    handler = call.handler = Handler()
    try:
        if call.entry.offloaded:
            # The record's first part, once the handler waits (the first attempt's only).
            at_first_wait, call.at_first_wait = call.at_first_wait, None
            returned = await _awaited(call, handler.run(tool.execute(call.params, ctx)), inline=True,
                                      at_first_wait=at_first_wait)
        else:  # the usual way, awaited here directly (one coroutine frame less on each resumption)
            returned = await call.services.workers.run(handler.run(tool.execute(call.params, ctx)),
                                                       tool.timeout_seconds)
    except asyncio.CancelledError:
        ctx.cancel_event.set()
        raise
    except _HANDLER_FAILURES as exc:
        return failure_of(exc, call)
    except Exception as exc:
        log.exception("tool %s raised", call.name)
        return failure_of(exc, call)
    return checked(returned, call)


async def run_with_retries(call: Call, first: ToolResult | None = None) -> ToolResult:
    """The call, retried on a retryable failure when that is safe (a read, or an idempotent
    tool). ``first``: the first attempt's result, when it already ran (on the preview's trip)."""
    tool = call.tool
    may_retry = call.risk is RiskLevel.READ or tool.idempotent
    attempts = 1 + (max(0, tool.max_retries) if may_retry else 0)
    try:
        result = first if first is not None else await run_once(call)
        for attempt in range(1, attempts):
            if result.success or result.error_kind is None or not result.error_kind.is_retryable:
                break
            log.info("retrying %s after %s (%d/%d)", tool.name, result.error_kind.value, attempt, attempts - 1)
            result = await run_once(call)
    finally:
        call.host.set_activity(None)
    return result


async def preview_on_worker(call: Call, ruling_of: RulingFn) -> Trip:
    """One round trip: the preview and its ruling, and the first run when that is automatic.
    A failed preview stops the call as before; a failed first run is that attempt's result."""
    trip = Trip(Deadline(call.tool.timeout_seconds))
    loop = asyncio.get_running_loop()
    on_status = call.on_status

    def running() -> None:  # from the worker: the status listener lives on this loop
        if on_status is not ignore_status:
            loop.call_soon_threadsafe(on_status, ToolStatus.RUNNING)

    handler = call.handler = Handler()
    try:
        await call.services.workers.run(handler.run(_preview_then_run(call, trip, ruling_of, running)), trip.deadline)
    except asyncio.CancelledError:
        call.ctx.cancel_event.set()
        if trip.ran:
            call.host.set_activity(None)
            # It ran: the record says how it was allowed (the approval step will not run now).
            assert trip.ruling is not None
            call.record.decision = Decision.AUTO
            call.record.provenance, call.record.deciding = trip.ruling.provenance, trip.ruling.deciding
        raise
    except _HANDLER_FAILURES as exc:
        trip.result = _trip_failed(call, trip, exc)
    except Exception as exc:
        log.exception("tool %s raised", call.name)
        trip.result = _trip_failed(call, trip, exc)
    else:
        if trip.ran:
            trip.result = checked(handler.returned, call)
    finally:
        call.record.ran = trip.ran  # the round trip is over: no step starts after this
    return trip


async def _preview_then_run(call: Call, trip: Trip, ruling_of: RulingFn, running: Callable[[], None]) -> object:
    """On the worker: what the caller's loop would otherwise do between two round trips. Returns
    what the handler returned (``None`` when it did not run)."""
    preview = await call.tool.preview(call.params, call.ctx)
    call.ctx.preview = preview if isinstance(preview, ToolPreview) else None
    trip.rules, trip.ruling = ruling_of(call)
    if trip.ruling.verdict is not ApprovalVerdict.AUTO or not trip.deadline.next_step():
        return None  # asked or refused on the caller's loop; or the caller has given up
    running()
    undo = call.services.undo
    call.kept = undo.before_here(call.ctx) if undo else {}
    return await call.tool.execute(call.params, call.ctx)


def _trip_failed(call: Call, trip: Trip, exc: Exception) -> ToolResult:
    failure = failure_of(exc, call)
    if not trip.ran:
        raise _preview_failed(failure)
    return failure


async def _awaited(call: Call, coro: Coroutine[Any, Any, T], *, inline: bool,
                   at_first_wait: Callable[[], None] | None = None) -> T:
    """``coro`` under the tool's limit: on a worker, or ``inline`` on this loop (stepped once
    before a timer is armed: an adapter's preview mostly answers at once; ``at_first_wait`` is
    called once it first waits, in that step)."""
    timeout = call.tool.timeout_seconds
    try:
        if inline:
            return await bounded(coro, timeout, at_first_wait)
        return await call.services.workers.run(coro, timeout)
    except asyncio.CancelledError:
        call.ctx.cancel_event.set()
        raise


def checked(returned: object, call: Call) -> ToolResult:
    """What the handler returned, if it is a ``ToolResult``; else the tool's own bug."""
    if isinstance(returned, ToolResult):
        return returned
    return ToolResult.fail(ErrorKind.INTERNAL, for_person(
        f"'{call.ctx.tool_name}' returned {type(returned).__name__}, not a ToolResult",
        N_("{name} failed: it gave back something that is not a tool result (a fault in the tool)."),
        name=quoted_later(call.ctx.tool_name)))


def failure_of(exc: Exception, call: Call) -> ToolResult:
    """What a handler's exception means for the call."""
    if isinstance(exc, TimeoutError):
        call.ctx.cancel_event.set()
        seconds = f"{call.tool.timeout_seconds:g}"
        return ToolResult.fail(ErrorKind.TIMEOUT, for_person(f"'{call.ctx.tool_name}' timed out after {seconds} s",
                                                             N_("{name} did not finish within {seconds} s."),
                                                             name=quoted_later(call.ctx.tool_name), seconds=seconds))
    if isinstance(exc, CancelledByUser):
        # The tool contract speaks English only (it imports nothing of the app's translations):
        # a stop it reports in plain words reaches the person in theirs.
        said = exc.args[0] if exc.args and isinstance(exc.args[0], str) and exc.args[0] else "cancelled"
        return ToolResult.fail(ErrorKind.CANCELLED,
                               said if isinstance(said, Deferred) else for_person(said, N_("You stopped this call.")))
    if isinstance(exc, ToolError):
        return ToolResult.fail(exc.kind, exc.message)
    # A bug in the tool (logged); the person reads the exception's own words, which are technical.
    return ToolResult.fail(ErrorKind.INTERNAL, for_person(f"{type(exc).__name__}: {exc}",
                                                          N_("{name} failed with an unexpected error: {error}"),
                                                          name=quoted_later(call.ctx.tool_name),
                                                          error=f"{type(exc).__name__}: {exc}"))


def _preview_failed(failure: ToolResult) -> CallStopped:
    return CallStopped(failure.error_kind or ErrorKind.INTERNAL,
                       for_person(f"preview failed: {failure.error}", N_("the preview failed: {error}"),
                                  error=failure.error))
