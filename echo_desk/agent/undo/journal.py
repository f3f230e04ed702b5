"""Keeps what every file held before a tool changed it, so the change can be undone.

The dispatcher calls ``before`` once the call is approved (reading each file the preview
names) and ``after`` with the result. Contents are stored as blobs; a file over the size cap
is recorded as "not restorable". A copy that cannot be kept before the call stops it (nothing is
changed); a record that cannot be written after it does not undo the change: the records wait
in memory for the next write that fits, and the call's result says Revert may not find it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.undo import pruning
from echo_desk.common.storable import storable_text
from echo_desk.i18n import N_, for_person
from echo_desk.store import held_back
from echo_desk.store.blobs import BlobStore, sha256
from echo_desk.store.changes import ChangeRecord, ChangeStore, NotRestorable
from echo_desk.store.not_saved import failure_cause, storage_failure_text
from echo_desk.tools import FileChange, FileChangeKind, ToolError, ToolExecutionContext, ToolResult

log = logging.getLogger(__name__)

#: ``ChangeRecord.kind`` of a folder a call created (``ToolResult.folders_created``).
FOLDER_CREATED = "create_folder"
#: ``ChangeRecord.kind`` of a folder a call took away (``ToolResult.folders_removed``; Revert
#: makes it again, empty ones included).
FOLDER_REMOVED = "remove_folder"

#: The person's turn a tool call belongs to (one message and everything the agent did for it).
_TURN: contextvars.ContextVar[str] = contextvars.ContextVar("echo_desk_turn", default="")


def current_turn() -> str:
    return _TURN.get()


@contextlib.contextmanager
def turn(turn_id: str | None = None) -> Iterator[str]:
    """Calls made inside (and in tasks started inside) belong to one turn."""
    chosen = turn_id or "turn_" + uuid.uuid4().hex[:16]
    token = _TURN.set(chosen)
    try:
        yield chosen
    finally:
        _TURN.reset(token)


@dataclass(frozen=True)
class _Seen:
    """A file as it was right before the call ran."""

    sha256: str | None  # None: absent
    mode: int | None
    restorable: bool
    why_not: str = ""


#: After writes, pruning runs at most this often (it walks every kept copy)...
PRUNE_EVERY_SECONDS = 300.0
#: ...unless the copies kept since the last run add up to this share of the size cap.
PRUNE_AT_SHARE_OF_CAP = 0.1


class UndoJournal:
    def __init__(self, changes: ChangeStore, blobs: BlobStore, max_file_bytes: Callable[[], int],
                 keep_seconds: Callable[[], float], *, max_total_bytes: Callable[[], int] | None = None,
                 trash_root: Path | None = None) -> None:
        self.changes = changes
        self.blobs = blobs
        self._max_bytes = max_file_bytes
        self._keep_seconds = keep_seconds
        self._max_total = max_total_bytes or (lambda: 1 << 62)
        self._trash_root = trash_root
        self._prune_lock = threading.Lock()
        self._pruner: threading.Thread | None = None
        self._last_prune = 0.0
        self._kept_since_prune = 0
        self._held: list[ChangeRecord] = []
        self._held_lock = threading.Lock()
        #: The last pruning's figures (for the log and tests).
        self.last_prune: pruning.PruneReport | None = None

    async def before(self, ctx: ToolExecutionContext) -> dict[str, _Seen]:
        """The current state of every file the approved preview will change."""
        if not (ctx.preview and ctx.preview.file_changes):
            return {}
        return await asyncio.to_thread(self.before_here, ctx)

    def before_here(self, ctx: ToolExecutionContext) -> dict[str, _Seen]:
        """``before`` on the calling thread: for a tool worker, already off the caller's loop."""
        paths = [c.path for c in (ctx.preview.file_changes if ctx.preview else ())]
        if not paths:
            return {}
        try:
            return self._snapshot(paths)
        except ToolError:
            raise
        except Exception:
            log.exception("undo: could not keep the previous contents of %s", paths)
            return {}

    async def after(self, ctx: ToolExecutionContext, result: ToolResult,
                    seen: dict[str, _Seen]) -> dict[str, str] | None:
        """Record the files ``result`` reports changed (the tool's own account). ``None`` when
        they were recorded (or there was nothing to record); else why not, for the call's result
        (``{"cause": failure_cause, "error": the system's words}``): Revert cannot find them yet."""
        if not result.file_changes and not result.folders_created and not result.folders_removed:
            return None
        try:
            await asyncio.to_thread(self._record, ctx, result, seen)
        except Exception as exc:
            log.exception("undo: could not record the changes of %s", ctx.call_id)
            return {"cause": failure_cause(exc), "error": str(exc)}
        return None

    def changed_since(self, seen: dict[str, _Seen]) -> tuple[FileChange, ...]:
        """What the files ``before`` kept show now, as changes: for a call stopped while its handler
        ran, whose own account of what it wrote was lost. A file whose earlier content could not
        be kept (too large, not a regular file), or that is no longer a regular file, is left out:
        it cannot be compared, and Revert could not restore it."""
        found = []
        for path, before in seen.items():
            if not before.restorable:
                continue
            try:
                now = current_sha256(path)
            except OSError:
                log.warning("undo: could not read %s after its call was stopped", path, exc_info=True)
                continue
            if now == before.sha256 or now == UNREADABLE:
                continue
            kind = (FileChangeKind.CREATE if before.sha256 is None
                    else FileChangeKind.DELETE if now is None else FileChangeKind.MODIFY)
            found.append(FileChange(path=path, kind=kind, before_sha256=before.sha256, after_sha256=now, diff=""))
        return tuple(found)

    @property
    def held(self) -> int:
        """Records waiting for the change log to take them."""
        with self._held_lock:
            return len(self._held)

    def _write(self, records: list[ChangeRecord]) -> None:
        """Write the records held back before, then ``records``, in order, in one transaction;
        when the log refuses them all wait for the next write."""
        with self._held_lock:
            waiting = self._held + records
            try:
                self.changes.add(waiting)
            except Exception:
                # Held as the audit log holds its own (``store.held_back``).
                self._held, dropped = held_back.hold(waiting)
                if dropped:
                    log.error("undo: %d change records dropped: the change log has refused writes too long",
                              dropped)
                raise
            self._held = []

    def over_the_cap(self, changes: Iterable[FileChange]) -> tuple[str, ...]:
        """The files whose present content is too large to keep: Revert could not restore them.
        Said before approval, so nobody counts on an undo that will not exist."""
        cap = self._max_bytes()
        found = []
        for change in changes:
            if change.kind is FileChangeKind.CREATE:
                continue
            with contextlib.suppress(OSError):
                if os.lstat(change.path).st_size > cap:
                    found.append(change.path)
        return tuple(found)

    def _read(self, path: str) -> tuple[bytes | None, os.stat_result | None, str]:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None, None, ""
        if not stat.S_ISREG(st.st_mode):
            return None, st, NotRestorable.NOT_REGULAR.value
        if st.st_size > self._max_bytes():
            return None, st, NotRestorable.TOO_LARGE.value
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            return _read_all(fd), os.fstat(fd), ""
        finally:
            os.close(fd)

    def _snapshot(self, paths: list[str]) -> dict[str, _Seen]:
        seen: dict[str, _Seen] = {}
        for path in dict.fromkeys(paths):
            _recordable(path)
            data, st, why = self._read(path)
            if st is None:
                seen[path] = _Seen(None, None, True)
            elif data is None:
                seen[path] = _Seen("", stat.S_IMODE(st.st_mode), False, why)
            else:
                seen[path] = _Seen(self._keep(path, data), stat.S_IMODE(st.st_mode), True)
                self._kept_since_prune += len(data)
        return seen

    def _keep(self, path: str, data: bytes) -> str:
        """Keep ``data`` for Revert; a disk that refuses it stops the change before anything is
        written (the person was shown a change Revert could undo, and it must stay so)."""
        try:
            return self.blobs.put(data)
        except OSError as exc:
            cause = storage_failure_text(exc)
            raise ToolError(for_person(
                f"nothing was changed: Echo Desk could not keep a copy of {path} for Revert ({exc}); "
                "free some space in Echo Desk's data folder and try again",
                N_("Nothing was changed: Echo Desk could not keep a copy of {path} for Revert ({cause})."),
                path=path, cause=cause)) from exc

    def _record(self, ctx: ToolExecutionContext, result: ToolResult, seen: dict[str, _Seen]) -> None:
        now = time.time()
        records: list[ChangeRecord] = [
            ChangeRecord(at=now, conversation_id=ctx.conversation_id, turn_id=current_turn(), call_id=ctx.call_id,
                         tool=ctx.tool_name, path=str(folder), kind=FOLDER_CREATED, before_sha256=None,
                         before_mode=None, after_sha256=None, restorable=True)
            for folder in result.folders_created
        ]
        records += [
            ChangeRecord(at=now, conversation_id=ctx.conversation_id, turn_id=current_turn(), call_id=ctx.call_id,
                         tool=ctx.tool_name, path=str(folder), kind=FOLDER_REMOVED, before_sha256=None,
                         before_mode=result.removed_folder_modes.get(folder), after_sha256=None, restorable=True)
            for folder in result.folders_removed
        ]
        for change in result.file_changes:
            before = seen.get(change.path)
            restorable, why = True, ""
            if before is None:
                if change.kind is FileChangeKind.CREATE:
                    before = _Seen(None, None, True)
                else:
                    before = _Seen("", None, False, NotRestorable.NOT_PREVIEWED.value)
            if not before.restorable:
                restorable, why = False, before.why_not
            elif before.sha256 != change.before_sha256:
                restorable, why = False, NotRestorable.CHANGED_BEFORE_WRITE.value
            # What the tool wrote is kept for the three-way view only; a revert checks its hash.
            self._keep_after(change)
            records.append(ChangeRecord(
                at=now, conversation_id=ctx.conversation_id, turn_id=current_turn(), call_id=ctx.call_id,
                tool=ctx.tool_name, path=change.path, kind=change.kind.value,
                before_sha256=before.sha256 or None, before_mode=before.mode,
                after_sha256=change.after_sha256, restorable=restorable, not_restorable_why=why,
            ))
        for record in records:  # checked first: one such record held back would hold every later one
            _recordable(record.path, before=False)
        self._write(records)
        self._prune_if_due()

    def _keep_after(self, change: FileChange) -> None:
        if change.after_sha256 is None or self.blobs.has(change.after_sha256):
            return
        data, _st, _why = self._read(change.path)
        if data is not None and sha256(data) == change.after_sha256:
            self.blobs.put(data)

    def prune(self, now: float | None = None) -> pruning.PruneReport:
        """Apply the age limit and the size cap to the kept copies and the trash, now."""
        with self._prune_lock:
            self._last_prune = time.monotonic()
            self._kept_since_prune = 0
            report = pruning.prune(self.changes, self.blobs, self._trash_root, keep_seconds=self._keep_seconds(),
                                   max_total_bytes=self._max_total(), now=now)
        self.last_prune = report
        if report.bytes_freed or report.forgotten_for_space or report.forgotten_for_age:
            log.info("undo: pruned %s", report)
        return report

    def prune_in_background(self) -> threading.Thread:
        """Prune on a thread of its own (start-up, after writes); one run at a time."""
        with self._prune_lock:
            if self._pruner is not None and self._pruner.is_alive():
                return self._pruner
            self._pruner = threading.Thread(target=self._prune_logged, name="undo-prune", daemon=True)
            self._pruner.start()
            return self._pruner

    def _prune_logged(self) -> None:
        try:
            self.prune()
        except Exception:
            log.exception("undo: could not prune the kept contents")

    def _prune_if_due(self) -> None:
        due = time.monotonic() - self._last_prune > PRUNE_EVERY_SECONDS
        if due or self._kept_since_prune > self._max_total() * PRUNE_AT_SHARE_OF_CAP:
            self.prune_in_background()

    def close(self, timeout: float = 30.0) -> None:
        """Wait for a pruning run (it uses the change log), try once more to write what was held
        back, then close the log."""
        pruner = self._pruner
        if pruner is not None:
            pruner.join(timeout)
        if self.held:
            try:
                self._write([])
            except Exception:
                log.exception("undo: %d change records could not be written before closing", self.held)
        self.changes.close()


#: The file exists but cannot be compared (a folder, a symlink, unreadable).
UNREADABLE = "unreadable"


def current_sha256(path: str) -> str | None:
    """What ``path`` holds now: its hash, ``None`` when absent, ``UNREADABLE`` otherwise."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return UNREADABLE
    try:
        return sha256(read_regular(path))
    except OSError:
        return UNREADABLE


def read_regular(path: str) -> bytes:
    """The bytes of the file at ``path``, never through a link at its end."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _recordable(path: str, *, before: bool = True) -> None:
    """The change log keeps paths as text: a name whose bytes are not UTF-8 cannot be kept (and,
    held back, it would stop every later record). Before the change nothing is changed; after it
    (a file the preview did not name), the call is told Revert cannot find it."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = storable_text(path)
        if not before:
            raise ValueError(f"the name of {shown} is not UTF-8") from None
        raise ToolError(for_person(
            f"nothing was changed: Revert cannot keep {shown}, whose name is not UTF-8; rename it first",
            N_("Nothing was changed: Revert cannot keep {path}, whose name is not UTF-8. Rename it first."),
            path=shown)) from None

