"""The per-call context handed to ``Tool.preview`` and ``Tool.execute``."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from echo_desk.tools.host import NullToolHost, ToolHost
from echo_desk.tools.results import Target, TargetKind, ToolPreview


class CancelledByUser(Exception):
    """Raised by ``ctx.check_cancelled()`` once the person pressed Stop."""


class _CancelEventField:
    """``ctx.cancel_event``: a ``threading.Event``, made the first time anyone reads it.

    Most calls end without anyone waiting on it or setting it, and building one costs more
    than the rest of the context (~3 µs: its ``Condition``). Two threads reading it first at
    once get the same event: ``dict.setdefault`` is atomic.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}"

    @overload
    def __get__(self, ctx: None, owner: type) -> None: ...
    @overload
    def __get__(self, ctx: ToolExecutionContext, owner: type) -> threading.Event: ...
    def __get__(self, ctx: ToolExecutionContext | None, owner: type) -> threading.Event | None:
        if ctx is None:
            return None  # the dataclass's default: none given, one is made on first use
        event: threading.Event | None = ctx.__dict__.get(self._slot)
        if event is None:
            event = ctx.__dict__.setdefault(self._slot, threading.Event())
        return event

    def __set__(self, ctx: ToolExecutionContext, event: threading.Event | None) -> None:
        if event is not None:
            ctx.__dict__[self._slot] = event


@dataclass(frozen=True)
class HunkSelection:
    """The hunks of each file the person kept when they approved only part of a change.

    ``kept`` maps a path as previewed (``FileChange.path``) to the ids of the hunks that may be
    written (``DiffHunk.id`` of ``FileChange.hunks``: the hunks are data, never re-read from the
    diff's text, so a file name holding ``@@`` lines cannot shift them; an empty set: the file
    is not touched); ``message`` is what the person said about the rest. The engine has checked
    that every id was shown; a tool that sets ``writes_hunk_selection`` writes exactly those
    hunks of a file it gets a selection for (and the whole change otherwise).
    """

    kept: Mapping[str, frozenset[str]] = field(default_factory=dict)
    message: str = ""

    def of(self, path: str) -> frozenset[str] | None:
        """The kept hunk ids of ``path`` (``None``: no selection for it, take the change as shown)."""
        return self.kept.get(path)


@dataclass(kw_only=True)
class ToolExecutionContext:
    """Everything a handler may know about the call it serves.

    ``workspace_roots`` are resolved absolute folders the scope may read; ``write_roots``
    those it may change (empty for a read-only scope). ``hidden`` carries values such as
    ``user_id`` or ``workspace_id`` that the model never sees; the dispatcher injects those a
    tool declares. ``preview`` is what was shown for approval, if the tool previews.
    ``approved_by_person`` says the person approved this very call themselves (not a setting, a
    rule or a grant): only then does the approval cover a protected target
    (``approved_protected_targets``). ``hunk_selection`` is set when they kept only some hunks.
    """

    call_id: str
    tool_name: str
    scope_id: str
    conversation_id: str = ""
    scope_label: str = ""
    workspace_roots: tuple[Path, ...] = ()
    write_roots: tuple[Path, ...] = ()
    read_only: bool = False
    hidden: Mapping[str, Any] = field(default_factory=dict)
    host: ToolHost = field(default_factory=NullToolHost)
    preview: ToolPreview | None = None
    cancel_event: _CancelEventField = _CancelEventField()
    approved_by_person: bool = False
    hunk_selection: HunkSelection | None = None
    #: The ``delegate`` calls, outermost first, whose sub-agents' saved transcripts hold this
    #: call's step (a sub-agent's call has no message of its own); () for a conversation's own call.
    held_by: tuple[str, ...] = ()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check_cancelled(self) -> None:
        """Raise ``CancelledByUser`` if the call was cancelled; call it between steps."""
        if self.cancel_event.is_set():
            raise CancelledByUser(f"{self.tool_name} was cancelled")

    def emit(self, text: str) -> None:
        """Send partial output of a stream-capable tool to the card showing this call."""
        self.host.tool_output(self.call_id, text)

    def approved_protected_targets(self, kind: TargetKind | str) -> tuple[Target, ...]:
        """The protected targets of ``kind`` the person saw and approved for this very call.

        A tool acts on a protected target (``Target.protections``) only if it is in here: an
        automatic approval (a setting, a rule, a grant) never covers one.
        """
        if self.preview is None or self.approved_by_person is not True:  # only a real True counts
            return ()
        return tuple(t for t in self.preview.targets if t.kind == kind and t.protections)

    @property
    def workspace(self) -> Path | None:
        """The first workspace root, where relative paths are anchored."""
        return self.workspace_roots[0] if self.workspace_roots else None
