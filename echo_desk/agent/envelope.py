"""The output envelope: what the model and the UI card both receive for a call."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

from echo_desk.i18n import deferred_as_json, for_model
from echo_desk.tools.planted import CheckedLater, Planted
from echo_desk.tools.results import ErrorKind, FileChange

SCHEMA = "echo_desk_tool_output_v1"
#: Content beyond this is cut (with a marker) so one tool cannot flood the model's context.
MAX_CONTENT_CHARS = 60_000


class StoppedCall(asyncio.CancelledError):
    """A call cancelled while it ran: the cancel goes on, carrying ``envelope``, the call as
    recorded (what it left: its changes, what it tried to plant), for the card."""

    def __init__(self, envelope: Envelope) -> None:
        super().__init__("cancelled")
        self.envelope = envelope


def cap_content(text: str, limit: int = MAX_CONTENT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n…[truncated: {len(text) - limit} more characters not shown]"


#: Envelope metadata of a call the person denied: ``{"message": their note to the agent}`` (the
#: card says it in the person's language; the model reads the English ``error``).
DENIED_KEY = "denied_by_person"
#: Envelope metadata of a call whose file changes the change log could not take (a full disk):
#: ``{"cause": store.not_saved.failure_cause, "error": the system's words}``. The change was made;
#: Revert cannot find it until the log takes it (the card says so instead of offering Revert).
UNDO_NOT_RECORDED_KEY = "undo_not_recorded"
#: Stored with a failed call's envelope (not an envelope field: the model never reads it): what
#: makes its error re-translatable (``i18n.deferred_as_json``), for the reopened card.
ERROR_FOR_PERSON_KEY = "error_for_person"


@dataclass(frozen=True, kw_only=True)
class Envelope:
    ok: bool
    tool: str
    call_id: str
    content: str = ""
    error: str = ""
    error_kind: ErrorKind | None = None
    file_changes: tuple[FileChange, ...] = ()
    #: Not sent to the model: for the UI card (e.g. rows for a grid) and the audit.
    metadata: dict[str, Any] = field(default_factory=dict)
    #: What the call tried to plant, put aside or back (``ToolResult.planted``): for the audit.
    planted: tuple[Planted, ...] = ()
    planted_in: str = ""
    #: What the sandbox left, once it ended, when it still ran as the call's result went
    #: (``ToolResult.later_check``): the audit row and the card are brought up to date then.
    later_check: Future[CheckedLater] | None = None
    #: Only the first this many folders were checked for planted files (``ToolResult.folders_checked``).
    folders_checked: int = 0

    def __post_init__(self) -> None:
        if not self.ok and (not self.error or self.error_kind is None):
            raise ValueError("a failed envelope needs both error and error_kind")

    @classmethod
    def failure(cls, tool: str, call_id: str, kind: ErrorKind, error: str,
                metadata: dict[str, Any] | None = None) -> Envelope:
        return cls(ok=False, tool=tool, call_id=call_id, error=error, error_kind=kind, metadata=metadata or {})

    @property
    def model_error(self) -> str:
        """The error as the model reads it: English in any language (the card shows ``error``
        in the person's, with ``shown``)."""
        return for_model(self.error)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ok": self.ok,
            "tool": self.tool,
            "content": self.content,
            "error": self.model_error,
            "error_kind": self.error_kind.value if self.error_kind else "",
            "file_changes": [c.to_json() for c in self.file_changes],
        }

    def to_stored_json(self) -> dict[str, Any]:
        """``to_json`` as it is kept with a conversation (never sent to the model): a failure also
        keeps what makes its error re-translatable (``ERROR_FOR_PERSON_KEY``)."""
        value = self.to_json()
        for_person = deferred_as_json(self.error)
        if for_person is not None:
            value[ERROR_FOR_PERSON_KEY] = for_person
        return value

    def to_text(self) -> str:
        """The JSON the model receives as the tool result."""
        return json.dumps(self.to_json(), ensure_ascii=False)

    def checked(self, later: CheckedLater) -> Envelope:
        """This envelope once the later check of its sandbox (``later_check``) found ``later``:
        its card shows the plants as for a check made at once (``checked_late`` says when)."""
        metadata = self.metadata if later.metadata is None else {**self.metadata, **later.metadata}
        sandbox = metadata.get("sandbox")
        if isinstance(sandbox, dict):
            metadata = {**metadata, "sandbox": {**sandbox, "planted": [p.to_json() for p in later.planted],
                                                "checked_later": False, "checked_late": True}}
        return replace(self, metadata=metadata, planted=later.planted, planted_in=later.planted_in,
                       later_check=None)
