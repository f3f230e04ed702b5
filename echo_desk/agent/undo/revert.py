"""Revert what tools wrote: restore the previous content only if the file is still exactly
what the tool wrote; otherwise the person chooses between what it was, what the tool wrote
and what it is now. Nothing is ever overwritten without that check.

Several changes are undone newest first, so a file edited by three calls goes back through
each state it had. Writes use the file tools' atomic save.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from echo_desk.agent.undo.journal import (
    FOLDER_CREATED,
    FOLDER_REMOVED,
    UNREADABLE,
    current_sha256,
    read_regular,
)
from echo_desk.agent.undo.resolution import Resolution
from echo_desk.common.atomic import ABSENT, ChangedSincePreview, atomic_write, sha256
from echo_desk.common.fs import Resolved, open_dir
from echo_desk.store.blobs import BlobStore
from echo_desk.store.changes import ChangeRecord, ChangeStore, NotRestorable
from echo_desk.tools import ToolError

_READ_LIMIT = 1 << 30


@dataclass(frozen=True)
class RevertStep:
    record: ChangeRecord
    #: What is on disk when the plan was made: a SHA-256, ``None`` (absent) or ``UNREADABLE``.
    current_sha256: str | None
    #: The file is not what the tool left: the person must choose.
    conflict: bool

    @property
    def deletes(self) -> bool:
        """Undoing a creation removes the file."""
        return self.record.before_sha256 is None


@dataclass(frozen=True)
class RevertPlan:
    steps: tuple[RevertStep, ...]  # newest first
    not_restorable: tuple[ChangeRecord, ...] = ()
    already_reverted: tuple[ChangeRecord, ...] = ()

    @property
    def conflicts(self) -> tuple[RevertStep, ...]:
        return tuple(s for s in self.steps if s.conflict)

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(s.record.path for s in self.steps))


class LeftAlone(enum.StrEnum):
    """Why a change was not (or not fully) undone. Data: each view words it in its language."""

    NOT_RESTORABLE = "not_restorable"  # ``RevertIssue.not_restorable`` says why
    WAITING_FOR_CHOICE = "waiting_for_choice"  # changed since the tool wrote it; nobody chose yet
    KEPT_AS_IT_IS_NOW = "kept_as_it_is_now"  # the person chose so
    RESTORED_WHAT_THE_TOOL_WROTE = "restored_what_the_tool_wrote"  # the person chose so
    FOLDER_NOT_EMPTY = "folder_not_empty"  # a folder the call made holds other files now
    NOT_A_FOLDER_NOW = "not_a_folder_now"
    NOT_A_REGULAR_FILE_NOW = "not_a_regular_file_now"
    CHANGED_AGAIN = "changed_again"  # between the plan (or the choice) and the write
    CONTENT_NOT_KEPT = "content_not_kept"  # the copy to restore went missing meanwhile
    COULD_NOT_WRITE = "could_not_write"  # the system refused; ``detail`` holds its error
    LINK_IN_THE_PATH_NOW = "link_in_the_path_now"  # a folder on the way was replaced by a link


@dataclass(frozen=True)
class RevertIssue:
    reason: LeftAlone
    not_restorable: NotRestorable | None = None
    #: The system's own error text, for ``COULD_NOT_WRITE`` only (shown as it is).
    detail: str = ""


class _Refused(Exception):
    def __init__(self, issue: RevertIssue) -> None:
        super().__init__(issue.reason.value)
        self.issue = issue


@dataclass
class RevertReport:
    reverted: list[ChangeRecord] = field(default_factory=list)
    #: Changes left as they are, with why (waiting for a choice, kept by choice, not restorable).
    kept: list[tuple[ChangeRecord, RevertIssue]] = field(default_factory=list)
    failed: list[tuple[ChangeRecord, RevertIssue]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.kept and not self.failed


def _resolved(path: str) -> Resolved:
    """``path`` under its nearest existing folder (missing folders are made again on restore).

    Recorded paths were free of links when the tool wrote them: a link in the way now (a
    folder swapped for a link to elsewhere) refuses the step, so a revert never writes through it.
    """
    target = Path(path)
    root = target.parent
    while not root.is_dir() and root != root.parent:
        root = root.parent
    _no_link_in(root)
    return Resolved(target, root)


def _no_link_in(folder: Path | str) -> None:
    if os.path.realpath(folder) != str(folder):
        raise _Refused(RevertIssue(LeftAlone.LINK_IN_THE_PATH_NOW))


def _open_folder(folder: str) -> int:
    """``folder`` opened from ``/`` without following a link on the way (recorded paths had
    none), so a folder swapped for a link after the check is not gone through either."""
    _no_link_in(folder)
    try:
        return open_dir(Path("/"), Path(folder).parts[1:])
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _Refused(RevertIssue(LeftAlone.LINK_IN_THE_PATH_NOW)) from exc
        raise


def _could_not_write(exc: OSError) -> RevertIssue:
    return RevertIssue(LeftAlone.COULD_NOT_WRITE, detail=str(exc.strerror))


class Reverter:
    def __init__(self, changes: ChangeStore, blobs: BlobStore) -> None:
        self.changes = changes
        self.blobs = blobs

    # -- what to revert -------------------------------------------------------------------
    def plan_calls(self, call_ids: Iterable[str]) -> RevertPlan:
        return self.plan(self.changes.for_calls(call_ids))

    def plan_turn(self, conversation_id: str, turn_id: str) -> RevertPlan:
        return self.plan(self.changes.for_turn(conversation_id, turn_id))

    def plan_turns_of(self, call_ids: Iterable[str]) -> RevertPlan:
        """Every change of the turn(s) ``call_ids`` were made in (sub-agents' calls included)."""
        records = self.changes.for_calls(call_ids)
        found: dict[int, ChangeRecord] = {}
        for conversation, turn_id in {(r.conversation_id, r.turn_id) for r in records}:
            if not turn_id:  # made outside a turn (the CLI): only the calls themselves
                found.update((r.id, r) for r in records if r.conversation_id == conversation and not r.turn_id)
                continue
            found.update((r.id, r) for r in self.changes.for_turn(conversation, turn_id))
        return self.plan(found.values())

    def plan_since(self, conversation_id: str, call_ids: Iterable[str]) -> RevertPlan:
        """Everything the conversation changed from the first of ``call_ids`` on."""
        records = self.changes.for_calls(call_ids)
        if not records:
            return RevertPlan(())
        return self.plan(self.changes.since(conversation_id, min(r.id for r in records)))

    def plan(self, records: Iterable[ChangeRecord]) -> RevertPlan:
        newest_first = sorted(records, key=lambda r: r.id, reverse=True)
        steps: list[RevertStep] = []
        not_restorable: list[ChangeRecord] = []
        reverted: list[ChangeRecord] = []
        # Each path's state as the earlier (newer) steps will leave it.
        expected: dict[str, str | None] = {}
        for record in newest_first:
            if record.reverted:
                reverted.append(record)
                continue
            if not record.restorable:
                not_restorable.append(record)
                continue
            if record.before_sha256 and not self.blobs.has(record.before_sha256):
                not_restorable.append(replace(record, restorable=False,
                                              not_restorable_why=NotRestorable.CONTENT_MISSING.value))
                continue
            if record.kind in (FOLDER_CREATED, FOLDER_REMOVED):  # judged when it is its turn
                # Whether something is there now: a folder absent now that the revert makes again
                # (for itself or for a file inside) gets its recorded mode back.
                steps.append(RevertStep(record, UNREADABLE if os.path.lexists(record.path) else None,
                                        conflict=False))
                continue
            now = expected[record.path] if record.path in expected else current_sha256(record.path)
            steps.append(RevertStep(record, now, conflict=now != record.after_sha256))
            expected[record.path] = record.before_sha256
        return RevertPlan(tuple(steps), tuple(not_restorable), tuple(reverted))

    def contents(self, step: RevertStep) -> tuple[bytes | None, bytes | None, bytes | None]:
        """(what it was, what the tool wrote, what it is now); ``None`` for absent or not kept."""
        record = step.record
        before = self.blobs.get(record.before_sha256) if record.before_sha256 else None
        wrote = self.blobs.get(record.after_sha256) if record.after_sha256 else None
        try:
            now = read_regular(record.path) if current_sha256(record.path) not in (None, UNREADABLE) else None
        except OSError:
            now = None
        return before, wrote, now

    # -- doing it -------------------------------------------------------------------------
    def apply(self, plan: RevertPlan, choices: Mapping[int, Resolution] | None = None, *,
              progress: Callable[[int, int], None] | None = None) -> RevertReport:
        """Carry out ``plan``, newest first. A conflicting step runs only with a choice in
        ``choices`` (keyed by record id), and only if the file is still what was shown.
        ``progress(done, total)`` is called before each step (from the calling thread)."""
        chosen = choices or {}
        report = RevertReport()
        for record in plan.not_restorable:
            report.kept.append((record, RevertIssue(LeftAlone.NOT_RESTORABLE, record.why_not_restorable)))
        for done, step in enumerate(plan.steps):
            if progress is not None:
                progress(done, len(plan.steps))
            record = step.record
            choice = chosen.get(record.id, Resolution.WHAT_IT_WAS if not step.conflict else None)
            if choice is None:
                report.kept.append((record, RevertIssue(LeftAlone.WAITING_FOR_CHOICE)))
                continue
            if record.kind == FOLDER_CREATED:
                self._remove_folder(record, report)
                continue
            if record.kind == FOLDER_REMOVED:
                self._restore_folder(step, report)
                continue
            if choice is Resolution.WHAT_IT_IS_NOW:
                report.kept.append((record, RevertIssue(LeftAlone.KEPT_AS_IT_IS_NOW)))
                continue
            # A clean step expects what the tool wrote; a resolved conflict, what was shown.
            expect = step.current_sha256 if step.conflict else record.after_sha256
            if expect == UNREADABLE:
                report.failed.append((record, RevertIssue(LeftAlone.NOT_A_REGULAR_FILE_NOW)))
                continue
            wanted = record.before_sha256 if choice is Resolution.WHAT_IT_WAS else record.after_sha256
            try:
                self._put(record, wanted, expect)
            except _Refused as refused:
                report.failed.append((record, refused.issue))
                continue
            except ChangedSincePreview:
                report.failed.append((record, RevertIssue(LeftAlone.CHANGED_AGAIN)))
                continue
            except ToolError as exc:
                report.failed.append((record, RevertIssue(LeftAlone.COULD_NOT_WRITE, detail=exc.message)))
                continue
            if choice is Resolution.WHAT_IT_WAS:
                self.changes.mark_reverted([record.id], time.time())
                report.reverted.append(record)
            else:
                report.kept.append((record, RevertIssue(LeftAlone.RESTORED_WHAT_THE_TOOL_WROTE)))
        return report

    def _put(self, record: ChangeRecord, wanted: str | None, expect: str | None) -> None:
        """Make ``record.path`` hold blob ``wanted`` (``None``: absent) if it holds ``expect``."""
        if wanted == expect:
            return
        if wanted is None:
            self._remove(record.path, expect)
            return
        data = self.blobs.get(wanted)
        if data is None:
            raise _Refused(RevertIssue(LeftAlone.CONTENT_NOT_KEPT))
        # The file tools keep a file's mode, so a file still there keeps the one it has now (a
        # mode the person set since is theirs); only a file made again gets its old one back.
        mode = record.before_mode if wanted == record.before_sha256 and expect is None else None
        atomic_write(_resolved(record.path), data, expect_sha256=expect or ABSENT, create_parents=True,
                     mode=mode)

    def _remove_folder(self, record: ChangeRecord, report: RevertReport) -> None:
        parent, name = os.path.split(record.path)
        try:
            dir_fd = _open_folder(parent)
        except FileNotFoundError:
            dir_fd = -1  # nothing left to remove
        except _Refused as refused:
            report.failed.append((record, refused.issue))
            return
        except OSError as exc:
            report.failed.append((record, _could_not_write(exc)))
            return
        try:
            if dir_fd >= 0:
                os.rmdir(name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            if not os.path.isdir(record.path) or os.path.islink(record.path):
                report.failed.append((record, RevertIssue(LeftAlone.NOT_A_FOLDER_NOW)))
            elif exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                report.kept.append((record, RevertIssue(LeftAlone.FOLDER_NOT_EMPTY)))
            else:
                report.failed.append((record, _could_not_write(exc)))
            return
        finally:
            if dir_fd >= 0:
                os.close(dir_fd)
        self.changes.mark_reverted([record.id], time.time())
        report.reverted.append(record)

    def _restore_folder(self, step: RevertStep, report: RevertReport) -> None:
        """Make a moved or deleted folder again (its files come back through their own steps;
        this keeps the empty ones too), with the mode it had if this revert made it (its files'
        steps run first and make it with the default mode)."""
        record = step.record
        try:
            st: os.stat_result | None = os.lstat(record.path)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISDIR(st.st_mode):
            report.failed.append((record, RevertIssue(LeftAlone.NOT_A_FOLDER_NOW)))
            return
        made_here = step.current_sha256 is None
        if st is None or (made_here and record.before_mode is not None):
            try:
                target = _resolved(record.path)
                fd = open_dir(target.root, target.parts, create=True)
                try:
                    if made_here and record.before_mode is not None:
                        os.fchmod(fd, stat.S_IMODE(record.before_mode))
                finally:
                    os.close(fd)
            except _Refused as refused:
                report.failed.append((record, refused.issue))
                return
            except OSError as exc:
                report.failed.append((record, _could_not_write(exc)))
                return
        self.changes.mark_reverted([record.id], time.time())
        report.reverted.append(record)

    @staticmethod
    def _remove(path: str, expect: str | None) -> None:
        if expect is None:
            return
        dir_fd = _open_folder(os.path.dirname(path))
        try:
            name = os.path.basename(path)
            with contextlib.suppress(FileNotFoundError):
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode):
                    raise _Refused(RevertIssue(LeftAlone.NOT_A_REGULAR_FILE_NOW))
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
                try:
                    chunks = []
                    while chunk := os.read(fd, 1 << 20):
                        chunks.append(chunk)
                finally:
                    os.close(fd)
                if sha256(b"".join(chunks)) != expect:
                    raise _Refused(RevertIssue(LeftAlone.CHANGED_AGAIN))
                os.unlink(name, dir_fd=dir_fd)
                os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
