"""The audit record of a call, put together (copied, redacted) when the call ends: on the caller's
thread, into the audit journal, when that is cheap (then its answer need not wait for the
database: ``AuditLog.append``); on the audit writer thread for a long one, whose redaction would
hold up the caller's loop for milliseconds (the chat's is the window's)."""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.pipeline.call import CallRecord, Decision
from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.store.redact import redact

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Provenance

log = logging.getLogger(__name__)

#: Up to this many characters of arguments and error, a record is redacted on the caller's thread
#: (redaction by shape takes about 0.1-0.2 µs a character here: 4,096 are under 1 ms) and journaled.
MOST_CHARS_ON_THE_CALLER = 4096


def record_call(audit: AuditLog | None, record: CallRecord, envelope: Envelope) -> None:
    """Queue the call's audit record."""
    if audit is None:
        return
    entry, call, scope = record.entry, record.call, record.scope
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


def _audit_record(*, at: float, duration_ms: float, said: _Said, arguments: object, hidden: tuple[str, ...],
                  envelope: Envelope) -> AuditRecord:
    """The audit record of a call."""
    return AuditRecord(
        at=at,
        conversation_id=said.conversation_id,
        scope_chain=said.scope_chain,
        call_id=said.call_id,
        tool=said.tool,
        source=said.source,
        # By key here; by shape in the record's row (long texts cost time).
        arguments=redact(arguments, hidden, shapes=False),
        decision=said.decision.value,
        provenance=said.provenance,
        rule_source=_rule_source(said.deciding),
        grant_id=_grant_id(said.deciding),
        ok=envelope.ok,
        error_kind=envelope.error_kind.value if envelope.error_kind else None,
        error=envelope.error,
        duration_ms=duration_ms,
        file_changes=[
            {"path": c.path, "kind": c.kind.value, "before_sha256": c.before_sha256,
             "after_sha256": c.after_sha256}
            for c in envelope.file_changes
        ],
        client=said.client,
    )


def _rule_source(deciding: Provenance | None) -> str:
    if deciding is None or deciding.rule is None:
        return ""
    return deciding.rule.source.describe()


def _grant_id(deciding: Provenance | None) -> str:
    return deciding.grant.id if deciding is not None and deciding.grant is not None else ""
