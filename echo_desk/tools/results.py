"""Values a tool hands back: results, file changes, error kinds and risk levels."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from echo_desk.tools.planted import CheckedLater, Planted
from echo_desk.tools.protection import Protection

#: A JSON object as parsed from JSON or about to be written to it (a tool's metadata or
#: arguments, a stored envelope, a JSON Schema, an audit record). Its values are ``Any`` on
#: purpose: JSON holds anything, and each reader checks the type of what it takes.
JsonObject = dict[str, Any]


class RiskLevel(enum.StrEnum):
    """How much a tool can change. Drives the default approval policy."""

    READ = "read"
    WRITE = "write"
    EXEC = "exec"

    @property
    def rank(self) -> int:
        return _RISK_RANK[self]


_RISK_RANK = {RiskLevel.READ: 0, RiskLevel.WRITE: 1, RiskLevel.EXEC: 2}


class ErrorKind(enum.StrEnum):
    """Why a call failed. Only infrastructure kinds count toward the circuit breaker."""

    VALIDATION = "validation"
    BUSINESS = "business"
    TIMEOUT = "timeout"
    DEPENDENCY = "dependency"
    INTERNAL = "internal"
    # Set by the dispatcher, never by a tool.
    DISABLED = "disabled"
    NOT_GRANTED = "not_granted"
    UNKNOWN_TOOL = "unknown_tool"
    REJECTED = "rejected"
    CANCELLED = "cancelled"

    @property
    def counts_toward_breaker(self) -> bool:
        return self in (ErrorKind.TIMEOUT, ErrorKind.DEPENDENCY, ErrorKind.INTERNAL)

    @property
    def is_retryable(self) -> bool:
        return self in (ErrorKind.TIMEOUT, ErrorKind.DEPENDENCY)


class FileChangeKind(enum.StrEnum):
    CREATE = "create"
    MODIFY = "modify"
    DELETE = "delete"


@dataclass(frozen=True, kw_only=True)
class DiffHunk:
    """One hunk of ``FileChange.diff`` as the tool will apply it, so that no one re-reads the
    diff text to find hunks (a file name can hold a line feed and ``@@``).

    ``id`` is stable for the same change (its position and content); ``first_line`` is the index
    of its ``@@`` line among the diff's lines (split on LF only) and ``line_count`` how many lines
    it spans, that line included. ``first_change`` is its first changed line (untrusted text: a
    label only)."""

    id: str
    header: str
    first_line: int
    line_count: int
    first_change: str = ""


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file a tool proposes to change (in a preview) or changed (in a result).

    ``before_sha256`` is ``None`` for a file that does not exist yet; ``after_sha256`` is
    ``None`` for a deletion. ``diff`` is a unified diff of the text; ``truncated`` says the
    diff was cut to keep the envelope small (the approval dialog says so).
    """

    path: str
    kind: FileChangeKind
    before_sha256: str | None
    after_sha256: str | None
    diff: str
    truncated: bool = False
    #: The diff's hunks, for a tool that can write part of them (``Tool.writes_hunk_selection``);
    #: empty otherwise, and for a shortened diff (taken whole or not at all).
    hunks: tuple[DiffHunk, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind.value,
            "before_sha256": self.before_sha256,
            "after_sha256": self.after_sha256,
            "diff": self.diff,
            "truncated": self.truncated,
        }


class Counted(enum.StrEnum):
    """Something a result counted, declared by the tool in its metadata (``counted``): an answer
    that gives a number near it, but not it, is flagged for the person to check."""

    #: Lines of a text the result holds (a file read whole or in part: its total).
    LINES = "lines"
    #: Entries of a listing (files and folders).
    ENTRIES = "entries"
    #: Files of a listing.
    FILES = "files"
    #: Folders of a listing.
    FOLDERS = "folders"
    #: Matches a search found.
    MATCHES = "matches"


#: The metadata key of a result's counts: ``{Counted value: how many}``.
COUNTS_KEY = "counts"


def counted(**counts: int) -> dict[str, dict[str, int]]:
    """Metadata declaring what a result counted: ``counted(lines=17)`` (names of ``Counted``)."""
    return {COUNTS_KEY: {Counted(name).value: int(value) for name, value in counts.items()}}


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What ``Tool.execute`` returns. ``success=False`` must carry ``error`` and ``error_kind``."""

    success: bool
    output: str = ""
    error: str = ""
    error_kind: ErrorKind | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    file_changes: tuple[FileChange, ...] = ()
    #: Folders the call created, outermost first (Revert removes them again if they are empty).
    folders_created: tuple[str, ...] = ()
    #: Folders the call took away (moved or deleted), parents first (Revert makes them again).
    folders_removed: tuple[str, ...] = ()
    #: The mode each of ``folders_removed`` had (Revert makes it again with it: a 0700 folder
    #: that kept others out of its files must not come back 0755).
    removed_folder_modes: Mapping[str, int] = field(default_factory=dict)
    #: What the call tried to plant that would run code later, put aside or back by the sandbox
    #: (the audit log records it; the card reads its own copy in ``metadata``).
    planted: tuple[Planted, ...] = ()
    #: The workspace folder ``planted``'s paths are relative to ('' when not one folder).
    planted_in: str = ""
    #: Set when the sandbox still ran as the result went: ``planted`` is then empty and what it
    #: left is this future's, once it ended (a ``concurrent.futures`` one: whoever waits may be
    #: on another thread or loop than the check).
    later_check: Future[CheckedLater] | None = None
    #: The sandbox's search for planted files stopped at its bound: only the first this many
    #: folders of the workspace were checked (0: every folder was, or no sandbox). For the audit.
    folders_checked: int = 0

    def __post_init__(self) -> None:
        if not self.success and (not self.error or self.error_kind is None):
            raise ValueError("a failed ToolResult needs both error and error_kind")

    @classmethod
    def ok(
        cls,
        output: str,
        *,
        metadata: dict[str, Any] | None = None,
        file_changes: tuple[FileChange, ...] = (),
        folders_created: tuple[str, ...] = (),
        folders_removed: tuple[str, ...] = (),
        removed_folder_modes: Mapping[str, int] | None = None,
        planted: tuple[Planted, ...] = (),
        planted_in: str = "",
        later_check: Future[CheckedLater] | None = None,
        folders_checked: int = 0,
    ) -> ToolResult:
        return cls(success=True, output=output, metadata=metadata or {}, file_changes=file_changes,
                   folders_created=folders_created, folders_removed=folders_removed,
                   removed_folder_modes=removed_folder_modes or {}, planted=planted, planted_in=planted_in,
                   later_check=later_check, folders_checked=folders_checked)

    @classmethod
    def fail(cls, kind: ErrorKind, error: str, *, metadata: dict[str, Any] | None = None,
             planted: tuple[Planted, ...] = (), planted_in: str = "",
             later_check: Future[CheckedLater] | None = None, folders_checked: int = 0) -> ToolResult:
        return cls(success=False, error=error, error_kind=kind, metadata=metadata or {}, planted=planted,
                   planted_in=planted_in, later_check=later_check, folders_checked=folders_checked)


class ToolError(Exception):
    """Raise from a handler to fail with a specific kind (default ``business``)."""

    def __init__(self, message: str, *, kind: ErrorKind = ErrorKind.BUSINESS) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class TargetKind(enum.StrEnum):
    """What a ``Target`` is (a plain string of these values is accepted and read as one)."""

    PATH = "path"
    COMMAND = "command"
    URL = "url"
    SERVER = "server"
    DATABASE = "database"
    #: Where a command runs (``value``: a ``Placement``); said by the shell tool.
    SANDBOX = "sandbox"
    OTHER = "other"


@dataclass(frozen=True, init=False)
class Target:
    """Something a call will touch, shown in full to the person approving it.

    ``kind`` is a ``TargetKind`` (``path``, ``command``, ``url``, ``server``, ``database`` or
    ``other``; given as a string of one of those, it is read as that kind, and any other
    string is refused); ``value`` is the full absolute path, command line, URL...; ``detail``
    adds context such as the working directory of a command. ``protections`` says why the target
    always needs the person's own approval (empty: it does not).
    """

    kind: TargetKind
    value: str
    detail: str = ""
    protections: tuple[Protection, ...] = ()

    def __init__(self, *, kind: TargetKind | str, value: str, detail: str = "",
                 protections: tuple[Protection, ...] = ()) -> None:
        try:
            typed = TargetKind(kind)
        except ValueError:
            raise ValueError(f"Target.kind {kind!r} is not one of: {', '.join(TargetKind)}") from None
        object.__setattr__(self, "kind", typed)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "detail", detail)
        object.__setattr__(self, "protections", protections)

    @property
    def full_detail(self) -> str:
        """``detail`` then each protection in English, ``; ``-separated: what the terminal, the
        audit log and the model read (the approval dialog translates the parts instead)."""
        return "; ".join(part for part in (self.detail, *(p.english for p in self.protections)) if part)


#: ``Target.kind`` of the line saying where a command runs: ``value`` is a ``Placement``,
#: ``detail`` the network it gets (outside, ``protections`` says why it runs there).
SANDBOX_TARGET = TargetKind.SANDBOX


class Placement(enum.StrEnum):
    """Where a command runs, as its preview says (``Target(kind=SANDBOX_TARGET, value=...)``).

    The approval policy lets an allow-in-the-sandbox rule run a call without asking only when
    its preview says ``IN_SANDBOX``, and believes that only of a built-in tool.
    """

    IN_SANDBOX = "in_sandbox"
    OUTSIDE_SANDBOX = "outside_sandbox"


@dataclass(frozen=True, kw_only=True)
class ToolPreview:
    """What a call would do, computed before it runs (off the UI thread).

    The dispatcher hands it to the approval dialog and, unchanged, to ``execute`` through
    ``ctx.preview`` so a file tool can refuse to write if the file changed since.
    """

    targets: tuple[Target, ...] = ()
    file_changes: tuple[FileChange, ...] = ()
    summary: str = ""
