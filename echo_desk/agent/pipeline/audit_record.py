"""The audit record of a call, put together (copied, redacted) when the call ends: on the caller's
thread, into the audit journal, when that is cheap (then its answer need not wait for the
database: ``AuditLog.append``); on the audit writer thread for a long one, whose redaction would
hold up the caller's loop for milliseconds (the chat's is the window's).

What is known before the handler runs (who called, the arguments, the verdict and its rule) is
put together while it runs (``begin``: on the loop's next turn, which comes once the handler
waits for the tool worker; an MCP tool's handler, awaited on the caller's loop, in the step where
it first waits, once its request is on its way), so that the call's end, whose answer
waits for its record to be in the journal, only adds the columns the end decides. The record and
the journal line are the same either way, and the answer still goes only once the line is written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.pipeline.call import CallRecord, Decision
from echo_desk.store.audit import AuditLog, AuditRecord, RowStart
from echo_desk.tools.planted import CheckedLater

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Provenance

log = logging.getLogger(__name__)

#: Up to this many characters of arguments and error, a record is redacted on the caller's thread
#: (redaction by shape takes about 0.1-0.2 µs a character here: 4,096 are under 1 ms) and journaled.
MOST_CHARS_ON_THE_CALLER = 4096


@dataclass(frozen=True, slots=True)
class Begun:
    """A call's audit record begun before its handler ran, and what it was made from (a record
    whose verdict or arguments changed since is put together whole when the call ends)."""

    start: RowStart
    made_from: tuple[object, ...]


def _made_from(record: CallRecord) -> tuple[object, ...]:
    return record.decision, record.provenance, record.deciding, record.arguments, record.entry


def begin(audit: AuditLog | None, record: CallRecord, *, at_first_wait: bool = False) -> Callable[[], None] | None:
    """Begin the call's audit record while its handler runs: on the loop's next turn; or, with
    ``at_first_wait`` (its handler is awaited on this loop), returned for the caller to call once
    the handler first waits, in the same step (no turn of the loop of its own)."""
    if audit is None or len(record.call.arguments) > MOST_CHARS_ON_THE_CALLER:
        return None
    if at_first_wait:
        return partial(_begin, record)
    asyncio.get_running_loop().call_soon(_begin, record)
    return None


def _begin(record: CallRecord) -> None:
    if record.ended:  # the handler answered without waiting: the record is already written whole
        return
    entry, call, scope = record.entry, record.call, record.scope
    try:
        arguments = record.arguments if record.arguments is not None else {"_raw": call.arguments[:2000]}
        start = RowStart.of(
            conversation_id=scope.conversation_id, scope_chain=scope.chain, call_id=call.id, tool=call.name,
            source=entry.source if entry else "",
            arguments=arguments, hidden=entry.tool.hidden_parameters if entry else (),
            decision=record.decision.value, provenance=record.provenance, rule_source=_rule_source(record.deciding),
            grant_id=_grant_id(record.deciding), client=scope.caller)
    except Exception:  # put together whole when the call ends, as without this
        log.exception("the audit record of %s could not be begun", call.name)
        return
    record.begun = Begun(start, _made_from(record))


def record_call(audit: AuditLog | None, record: CallRecord, envelope: Envelope) -> None:
    """Queue the call's audit record (and, when its sandbox is checked later, what that finds)."""
    record.ended = True
    if audit is None:
        return
    _record_call(audit, record, envelope)
    if envelope.later_check is not None:  # (after the row: its change is queued behind it)
        envelope.later_check.add_done_callback(partial(
            _record_checked_later, audit, record.scope.conversation_id, record.call.id, record.call.name))


def _record_checked_later(audit: AuditLog, conversation_id: str, call_id: str, tool: str,
                          found: Future[CheckedLater]) -> None:
    if found.cancelled() or found.exception() is not None:
        return  # (logged where it failed)
    later = found.result()
    if later.planted:
        audit.planted_later(conversation_id=conversation_id, call_id=call_id, tool=tool, planted=later.planted,
                            planted_in=later.planted_in)


def _record_call(audit: AuditLog, record: CallRecord, envelope: Envelope) -> None:
    entry, call, scope = record.entry, record.call, record.scope
    begun = record.begun
    if begun is not None and len(envelope.error) <= MOST_CHARS_ON_THE_CALLER \
            and all(a is b for a, b in zip(begun.made_from, _made_from(record), strict=True)):
        try:
            audit.append_started(begun.start, at=time.time(), ok=envelope.ok,
                                 error_kind=envelope.error_kind.value if envelope.error_kind else None,
                                 error=envelope.error, duration_ms=(time.perf_counter() - record.started) * 1000,
                                 file_changes=_file_changes(envelope), planted=envelope.planted,
                                 planted_in=envelope.planted_in, folders_checked=envelope.folders_checked,
                                 later=True)
        except Exception:  # a bug in building one record must not fail the call
            log.exception("the audit record of %s could not be put together", call.name)
        # On the loop's next turn: after the caller has answered (in the same turn as this).
        asyncio.get_running_loop().call_soon(audit.queue_later)
        return
    arguments = record.arguments if record.arguments is not None else {"_raw": call.arguments[:2000]}
    build = partial(
        _audit_record,
        at=time.time(),
        duration_ms=(time.perf_counter() - record.started) * 1000,
        said=_Said(call.id, call.name, scope.conversation_id, scope.chain, entry.source if entry else "",
                   record.decision, record.provenance, record.deciding, scope.caller),
        # The call's own dict, as it is now (the tool has returned: nothing changes it further).
        arguments=dict(arguments) if type(arguments) is dict else arguments,
        hidden=entry.tool.hidden_parameters if entry else (),
        envelope=envelope,
    )
    if len(call.arguments) + len(envelope.error) > MOST_CHARS_ON_THE_CALLER:
        audit.append_deferred(build)
        return
    try:
        audit.append(build())
    except Exception:  # a bug in building one record must not fail the call
        log.exception("the audit record of %s could not be put together", call.name)


class _Said(NamedTuple):
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


def _audit_record(*, at: float, duration_ms: float, said: _Said, arguments: Any, hidden: tuple[str, ...],
                  envelope: Envelope) -> AuditRecord:
    """The audit record of a call."""
    return AuditRecord(
        at=at,
        conversation_id=said.conversation_id,
        scope_chain=said.scope_chain,
        call_id=said.call_id,
        tool=said.tool,
        source=said.source,
        # Redacted by key and shape in the record's row, in one walk (a long call's costs ms).
        arguments=arguments,
        hidden=hidden,
        decision=said.decision.value,
        provenance=said.provenance,
        rule_source=_rule_source(said.deciding),
        grant_id=_grant_id(said.deciding),
        ok=envelope.ok,
        error_kind=envelope.error_kind.value if envelope.error_kind else None,
        error=envelope.error,
        duration_ms=duration_ms,
        file_changes=_file_changes(envelope),
        client=said.client,
        planted=envelope.planted,
        planted_in=envelope.planted_in,
        folders_checked=envelope.folders_checked,
    )


def _file_changes(envelope: Envelope) -> list[dict[str, Any]]:
    return [{"path": c.path, "kind": c.kind.value, "before_sha256": c.before_sha256, "after_sha256": c.after_sha256}
            for c in envelope.file_changes]


def _rule_source(deciding: Provenance | None) -> str:
    if deciding is None or deciding.rule is None:
        return ""
    return deciding.rule.source.describe()


def _grant_id(deciding: Provenance | None) -> str:
    return deciding.grant.id if deciding is not None and deciding.grant is not None else ""
