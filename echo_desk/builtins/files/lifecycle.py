"""The file-tool lifecycle shared by ``write_file`` and ``edit_file``.

``preview`` reads the old content and computes the new content and its diff. ``execute``
recomputes, checks the file still hashes to what was previewed, takes the file from the
editor, saves atomically, reports the change and tells the Host. On any failure the file is
untouched and the error says so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, TypeVar

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool, require_writable
from echo_desk.builtins.files import fscase, partial, runs_later
from echo_desk.builtins.files.partial import chosen_hunks
from echo_desk.common import fs
from echo_desk.common.atomic import ABSENT, ChangedSincePreview, atomic_write, sha256
from echo_desk.common.diffs import file_change, named
from echo_desk.i18n import N_, _, deferred, for_person
from echo_desk.sandbox import runs_code
from echo_desk.sandbox.inventory import Watched
from echo_desk.store import paths
from echo_desk.store.settings import Settings
from echo_desk.tools import (
    WRITES,
    ErrorKind,
    FileChange,
    Protection,
    ProtectionReason,
    RiskLevel,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)

MAX_WRITE_BYTES = 10 * 1024 * 1024
MAX_NEW_FOLDERS = 16


@dataclass(frozen=True)
class Plan:
    target: fs.Resolved
    before: bytes | None
    after: bytes
    change: FileChange
    protections: tuple[Protection, ...]
    #: The previewed base and the proposed text (per-hunk approval narrows between them).
    old_text: str = ""
    new_text: str = ""


def protections_of(target: fs.Resolved, *, inside: str = "", protected: Sequence[str] = (),
                   watched: Sequence[Watched] | None = None) -> tuple[Protection, ...]:
    """Why writing ``target`` needs the person's explicit approval of that exact path
    (``inside``: the path to name when ``target`` is a file inside the folder being approved;
    ``protected``: the person's own additions to the list of what makes a program run code;
    ``watched``: ``runs_later.watched_in`` of the workspace, when already taken for many targets)."""
    found: list[Protection] = []
    # Compared as the file system compares names: ``.GIT`` is ``.git`` on macOS and Windows.
    if fscase.inside_git_folder(target.path):
        found.append(Protection(reason=ProtectionReason.GIT_FOLDER, inside=inside))
    else:
        entry = _runs_code_entry(target, protected)
        later = None if entry is not None else runs_later.covering(
            target, runs_later.watched_in(target.root, protected) if watched is None else watched)
        if entry is not None:
            found.append(Protection(reason=ProtectionReason.RUNS_CODE, entry=entry.shown, why=entry.why,
                                    inside=inside))
        elif later is not None:
            found.append(Protection(reason=ProtectionReason.RUNS_CODE, entry=later.shown, why=later.why,
                                    inside=inside))
        else:
            program = next((p for p in paths.own_program() if fscase.inside_folder(target.path, p)), None)
            if program is not None:
                found.append(paths.own_program_protection(program, inside=inside))
    for reason, folder in paths.own_places():
        if fscase.inside_folder(target.path, folder):
            found.append(Protection(reason=reason, inside=inside))
    try:
        st = os.lstat(target.path)
    except OSError:
        st = None
    if st is not None and st.st_nlink > 1 and not stat.S_ISDIR(st.st_mode):  # a folder's links are its children
        found.append(Protection(reason=ProtectionReason.HARD_LINKED, links=st.st_nlink, inside=inside))
    return tuple(found)


def _runs_code_entry(target: fs.Resolved, protected: Sequence[str]) -> runs_code.Entry | None:
    """The entry of the protected list (``sandbox.runs_code``) that covers ``target``, compared
    case-insensitively where the workspace's file system folds case. In a workspace that holds
    the home folder below its top (``/home``), the home folder's place is looked at as well."""
    home = Path(os.path.realpath(Path.home()))
    entries = runs_code.all_entries(protected, in_home=home == target.root)
    found = _entry_in(target.parts, entries, target.root)
    if found is None and home != target.root and target.path.is_relative_to(home) \
            and fscase.inside_folder(home, target.root):
        found = _entry_in(target.path.relative_to(home).parts, runs_code.ENTRIES, target.root)
    return found


def _entry_in(parts: tuple[str, ...], entries: Sequence[runs_code.Entry], root: Path) -> runs_code.Entry | None:
    folded = runs_code.entry_of(parts, entries, fold=True)
    if folded is None:
        return None
    exact = runs_code.entry_of(parts, entries)
    if exact is not None:
        return exact
    return folded if fscase.folds_case(root) else None


class KnowsProtectedPaths:
    """A file tool that reads the person's own additions to the protected list (Settings ›
    Sandbox) from the settings it is given."""

    def __init__(self, settings: Callable[[], Settings] | None = None) -> None:
        self._settings = settings or Settings

    def protected_paths(self) -> tuple[str, ...]:
        return tuple(self._settings().sandbox.protected_paths)


def new_folders(target: fs.Resolved, *, including_itself: bool = False) -> list[str]:
    """The folders that making ``target`` (a file, or ``including_itself`` a folder) creates,
    outermost first: reported with the change, so Revert takes them away again."""
    missing = []
    folder = target.path if including_itself else target.path.parent
    while folder != target.root and not os.path.lexists(folder):
        missing.append(str(folder))
        folder = folder.parent
    if len(missing) > MAX_NEW_FOLDERS:
        raise ToolError(for_person(f"{target} would need {len(missing)} new folders; the limit is {MAX_NEW_FOLDERS}",
                                   N_("{path} would need {count} new folders; the limit is {limit}."),
                                   path=str(target), count=len(missing), limit=MAX_NEW_FOLDERS),
                        kind=ErrorKind.BUSINESS)
    return missing[::-1]


def _approved_exactly(ctx: ToolExecutionContext, plan: Plan) -> bool:
    shown = {p for t in ctx.approved_protected_targets("path") if t.value == str(plan.target) for p in t.protections}
    return all(p in shown for p in plan.protections)


class FileArguments(Arguments):
    """What every write tool names first: the file."""

    path: Annotated[fs.FilePath, WRITES]


W = TypeVar("W", bound=FileArguments)


class FileWriteTool(KnowsProtectedPaths, BuiltinTool[W]):
    """A write tool built on the lifecycle; subclasses compute the new content."""

    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})
    timeout_seconds = 60.0
    create_parents = False
    #: Per-hunk approval: ``run`` writes only the hunks the person kept (see ``partial``).
    writes_hunk_selection = True

    def new_content(self, args: W, before: bytes | None, target: fs.Resolved) -> tuple[str, str, bytes]:
        """``(old_text, new_text, new_bytes)`` for the file; raise ``ToolError`` to refuse."""
        raise NotImplementedError

    def load(self, args: W, ctx: ToolExecutionContext) -> tuple[fs.Resolved, bytes | None]:
        """The confined target and its current content (``None``: it does not exist yet)."""
        require_writable(ctx, self.name)
        target = fs.resolve(args.path, ctx.write_roots)
        if not target.parts:
            raise fs.not_a_file(target, "is the workspace folder, not a file")
        if self.create_parents:
            new_folders(target)
        return target, fs.read_existing(target, limit=MAX_WRITE_BYTES)

    def plan(self, args: W, target: fs.Resolved, before: bytes | None) -> Plan:
        old_text, new_text, after = self.new_content(args, before, target)
        if len(after) > MAX_WRITE_BYTES:
            raise ToolError(for_person(f"the new content is {len(after)} bytes; the limit is {MAX_WRITE_BYTES}",
                                       N_("The new content is {size} bytes; the limit is {limit} bytes."),
                                       size=len(after), limit=MAX_WRITE_BYTES),
                            kind=ErrorKind.VALIDATION)
        change = file_change(str(target), before, after, old_text, new_text)
        return Plan(target, before, after, change, protections_of(target, protected=self.protected_paths()),
                    old_text, new_text)

    async def preview_parsed(self, args: W, ctx: ToolExecutionContext) -> ToolPreview:
        plan = self.plan(args, *self.load(args, ctx))
        detail = deferred(N_("new file")) if plan.before is None and not plan.protections else ""
        summary = N_("Create {path}") if plan.before is None else N_("Change {path}")
        return ToolPreview(
            targets=(Target(kind="path", value=str(plan.target), detail=detail, protections=plan.protections),),
            file_changes=(plan.change,),
            summary=deferred(summary, path=plan.target),
        )

    async def execute_parsed(self, args: W, ctx: ToolExecutionContext) -> ToolResult:
        resolved, before = self.load(args, ctx)
        target = str(resolved)
        shown: FileChange | None = None
        if ctx.preview is not None:
            shown = next((c for c in ctx.preview.file_changes if c.path == target), None)
            if shown is None:
                raise ToolError(for_person(f"the approved preview does not cover {target}; nothing was written",
                                           N_("What you approved does not cover {path}; nothing was written."),
                                           path=str(target)), kind=ErrorKind.BUSINESS)
            # Compare before recomputing: an edit may no longer apply to the changed file.
            if shown.before_sha256 != (None if before is None else sha256(before)):
                raise ChangedSincePreview(target)
        plan = self.plan(args, resolved, before)
        if shown is not None and shown.after_sha256 != plan.change.after_sha256:
            raise ChangedSincePreview(target)
        hunk_note = ""
        chosen = chosen_hunks(ctx, target)
        if chosen is not None:
            narrowed, applied, declined = partial.narrow(plan, chosen)
            hunk_note = partial.report(target, applied, declined, ctx)
            if narrowed is None:  # the person kept no hunk: the file is not touched
                return ToolResult.ok(hunk_note, metadata={"path": target, "bytes": 0, "hunks_applied": []})
            plan = narrowed
        if plan.protections and not _approved_exactly(ctx, plan):
            raise ToolError(for_person(
                f"{target} is {'; '.join(p.english for p in plan.protections)}. Writing it needs your approval of this exact "
                "file; nothing was written.",
                N_("{path} is protected: writing it needs your approval of this exact file. Nothing was written."),
                path=str(target)), kind=ErrorKind.BUSINESS)
        ctx.host.set_activity(_("Saving {path}").format(path=target))
        try:
            if not await ctx.host.acquire_editor(target):
                raise ToolError(for_person(
                    f"the editor that has {target} open did not release it (unsaved changes?); nothing was written",
                    N_("The editor that has {path} open did not release it (unsaved changes?); nothing was written."),
                    path=str(target)), kind=ErrorKind.BUSINESS)
            try:
                ctx.check_cancelled()
                made = new_folders(plan.target) if self.create_parents else []
                atomic_write(
                    plan.target,
                    plan.after,
                    expect_sha256=plan.change.before_sha256 or ABSENT,
                    allow_hardlink=bool(plan.protections),
                    create_parents=self.create_parents,
                    check_cancelled=ctx.check_cancelled,
                    limit=MAX_WRITE_BYTES,
                )
                ctx.host.file_mutated(target)
            finally:
                ctx.host.release_editor(target)
        finally:
            ctx.host.set_activity(None)
        verb = "Created" if plan.before is None else "Saved"
        return ToolResult.ok(
            f"{verb} {named(target)} ({len(plan.after)} bytes)." + (f"\n{hunk_note}" if hunk_note else ""),
            metadata={"path": target, "bytes": len(plan.after)},
            file_changes=(plan.change,),
            folders_created=tuple(made),
        )
