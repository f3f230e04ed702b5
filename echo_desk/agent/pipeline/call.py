"""One tool call as it goes through the pipeline: what every step reads and writes."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from echo_desk.agent.status import ToolStatus
from echo_desk.tools.results import ErrorKind, RiskLevel, ToolResult

if TYPE_CHECKING:
    from echo_desk.agent.breaker import BreakerBoard
    from echo_desk.agent.host import Host
    from echo_desk.agent.model import ToolCall
    from echo_desk.agent.permissions.engine import PermissionEngine
    from echo_desk.agent.permissions.model import Provenance
    from echo_desk.agent.pipeline.audit_record import Begun
    from echo_desk.agent.pipeline.handler import Handler, Kept
    from echo_desk.agent.registry import RegisteredTool, ToolRegistry
    from echo_desk.agent.scope import Scope, ScopedContext
    from echo_desk.agent.undo.journal import UndoJournal
    from echo_desk.agent.worker import ToolWorkerPool
    from echo_desk.store.audit import AuditLog
    from echo_desk.store.settings import SettingsStore
    from echo_desk.tools.base import Tool


class Decision(enum.StrEnum):
    """How the approval step ended for a call (stored in the audit log as its value)."""

    NOT_ASKED = "not_asked"  # the call stopped before the approval step
    AUTO = "auto"  # allowed without asking (a rule, a grant, a setting or a risk default)
    ALLOWED = "allowed"  # the person allowed it
    DENIED = "denied"  # a rule, a setting or the person refused it
    #: The person was asked, and the call was withdrawn (cancelled, its client gone) before they answered.
    WITHDRAWN = "withdrawn"


StatusCallback = Callable[[ToolStatus], None]


def ignore_status(_: ToolStatus) -> None:
    return None


class CallStopped(Exception):
    """Ends the pipeline early with a failure envelope."""

    def __init__(self, kind: ErrorKind, error: str, metadata: dict[str, Any] | None = None) -> None:
        super().__init__(error)
        self.kind = kind
        self.error = error
        self.metadata = metadata


class Services(Protocol):
    """What the steps use of the dispatcher (the ``Dispatcher`` itself: nothing is copied per call)."""

    settings: SettingsStore
    #: The tools; its ``generation`` changes with the tools registered.
    registry: ToolRegistry
    breakers: BreakerBoard
    workers: ToolWorkerPool
    #: Permission rules and grants; ``None``: settings and risk defaults only.
    permissions: PermissionEngine | None
    #: Keeps what each written file held before, for Revert (``None``: no undo).
    undo: UndoJournal | None
    #: Where each call is recorded (``None``: not recorded).
    audit: AuditLog | None


@dataclass(slots=True)
class CallRecord:
    """What the pipeline learns about a call as it goes, from its first step; the audit record
    is made from it however far the call got."""

    call: ToolCall
    scope: Scope
    started: float
    entry: RegisteredTool | None = None
    #: The arguments as parsed (the audit log's copy), or what could not be parsed.
    arguments: object = None
    decision: Decision = Decision.NOT_ASKED
    provenance: str = ""
    deciding: Provenance | None = None
    #: The call's handler was started (a failure now counts for the breaker).
    ran: bool = False
    #: What a call stopped while its handler ran left: its own account, when it still gave one,
    #: or the files it changed (for the record and the card of the cancel).
    left: ToolResult | None = None
    #: Its audit record, begun while its handler ran (``audit_record.begin``); ``ended`` once recorded.
    begun: Begun | None = None
    ended: bool = False


@dataclass(slots=True)
class Call:
    """A call that passed the checks: what approval and execution work on, in one place."""

    record: CallRecord
    entry: RegisteredTool
    risk: RiskLevel
    #: The arguments that run: the model's, hidden parameters injected, or the person's edit.
    params: dict[str, Any]
    ctx: ScopedContext
    host: Host
    on_status: StatusCallback
    services: Services
    #: The person edited the arguments before approving (``params`` holds their version).
    edited: bool = False
    #: What the undo journal kept of the files before the handler first ran.
    kept: Kept = field(default_factory=dict)
    #: The handler of the latest attempt (``None`` until one starts).
    handler: Handler | None = None
    #: Begins the audit record when an offloaded handler (awaited on this loop) first waits
    #: (``audit_record.begin``); taken by the first attempt.
    at_first_wait: Callable[[], None] | None = None

    @property
    def tool(self) -> Tool:
        return self.entry.tool

    @property
    def scope(self) -> Scope:
        return self.record.scope

    @property
    def name(self) -> str:
        return self.entry.name
