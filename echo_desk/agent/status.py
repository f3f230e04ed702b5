"""Where a tool call stands, as the engine reports it to the UI and the terminal."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from echo_desk.tools.results import ErrorKind


class ToolStatus(enum.StrEnum):
    """A tool call's progress: the loop and dispatcher report the first three, the result the rest."""

    PENDING = "pending"  # the model is still writing the call, or it waits for its batch
    WAITING_APPROVAL = "waiting_approval"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    DENIED = "denied"  # the person said no
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self not in (ToolStatus.PENDING, ToolStatus.WAITING_APPROVAL, ToolStatus.RUNNING)

    @classmethod
    def of_result(cls, ok: bool, error_kind: ErrorKind | str | None) -> ToolStatus:
        """The final status of a call from its envelope (``error_kind`` as stored is accepted)."""
        from echo_desk.tools.results import ErrorKind  # a status is named long before a result is read

        if ok:
            return cls.DONE
        if error_kind == ErrorKind.REJECTED:
            return cls.DENIED
        if error_kind == ErrorKind.CANCELLED:
            return cls.CANCELLED
        return cls.FAILED
