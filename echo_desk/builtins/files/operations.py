"""``move_path``, ``copy_path``, ``delete_path`` and ``create_folder``: the file operations
people expect, confined like the other file tools, previewed in full, undoable.

Deleting moves the file or folder into Echo Desk's own trash; nothing is ever unlinked. Every
change is reported as ``FileChange``s (a move is the source deleted and the destination
created; a folder is every file in it), so the undo journal keeps the content and Revert puts
it back; the folders a call made or took away are in its metadata for Revert too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from echo_desk.builtins.arguments import A, Arguments
from echo_desk.builtins.common import BuiltinTool, require_writable
from echo_desk.builtins.files import arrived, runs_later, trees
from echo_desk.builtins.files.lifecycle import KnowsProtectedPaths, new_folders, protections_of
from echo_desk.common import entries, fs
from echo_desk.common.atomic import ABSENT, ChangedSincePreview, atomic_write, sha256
from echo_desk.common.diffs import cap, named, unified_diff
from echo_desk.common.textcodec import BinaryFile, decode
from echo_desk.i18n import deferred, for_person
from echo_desk.store import paths
from echo_desk.store.private import FILE_MODE as PRIVATE_FILE
from echo_desk.store.private import tighten_file, tighten_tree
from echo_desk.tools import (
    N_,
    READS,
    WRITES,
    ErrorKind,
    FileChange,
    FileChangeKind,
    Protection,
    ProtectionReason,
    RiskLevel,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    ToolRole,
)

MAX_FILE_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class _File:
    target: fs.Resolved
    data: bytes
    mode: int
    protections: tuple[Protection, ...]


def _read(target: fs.Resolved, what: str, protected: Sequence[str] = ()) -> _File:
    st = entries.require_regular(target, entries.lstat_entry(target), what)
    if st.st_size > MAX_FILE_BYTES:
        raise ToolError(for_person(f"{what} {target} is {st.st_size} bytes; the limit is {MAX_FILE_BYTES}",
                                   N_("{path} is {size} bytes; the limit is {limit} bytes."),
                                   path=str(target), size=st.st_size, limit=MAX_FILE_BYTES),
                        kind=ErrorKind.BUSINESS)
    data, st = fs.read_file_bytes(target, limit=MAX_FILE_BYTES)
    return _File(target, data, st.st_mode & 0o7777, protections_of(target, protected=protected))


def _require_absent(target: fs.Resolved, what: str, arriving: str = "") -> None:
    """``target`` must not exist yet, in a folder that does. ``arriving``: the name of what would
    come there (a move's or a copy's source), so an existing folder is answered with the path
    inside it that was probably meant: nothing is ever put inside a folder unasked (the path the
    rules judged and the person approved is the path written), but ``mv a.txt folder`` is what
    most people and models mean."""
    found = entries.lstat_entry(target)
    if found is not None and arriving and stat.S_ISDIR(found.st_mode):
        raise ToolError(for_person(
            f"{what} {target} is a folder that already exists; nothing was done. To put {arriving} "
            f"inside it, give the {what} {target.path / arriving}.",
            N_("{path} is a folder that already exists; nothing was done."), path=str(target)),
            kind=ErrorKind.BUSINESS)
    if found is not None:
        raise ToolError(for_person(f"{what} {target} already exists; nothing is replaced. Choose another name or "
                                   "delete it first.",
                                   N_("{path} already exists; nothing was replaced."), path=str(target)),
                        kind=ErrorKind.BUSINESS)
    if not os.path.isdir(target.path.parent):
        raise ToolError(for_person(f"the folder {target.path.parent} does not exist; create it first with create_folder",
                                   N_("The folder {path} does not exist."), path=str(target.path.parent)),
                        kind=ErrorKind.BUSINESS)


def _text_diff(path: str, data: bytes, *, removed: bool) -> tuple[str, bool]:
    """The whole text going away (or arriving) as a diff, so the person sees what moves;
    empty for a binary file."""
    try:
        text, _fmt = decode(data, path)
    except BinaryFile:
        return "", False
    old, new = (text, "") if removed else ("", text)
    return cap(unified_diff(old, new, path, created=not removed))


def _gone(file: _File) -> FileChange:
    diff, truncated = _text_diff(str(file.target), file.data, removed=True)
    return FileChange(path=str(file.target), kind=FileChangeKind.DELETE, before_sha256=sha256(file.data),
                      after_sha256=None, diff=diff, truncated=truncated)


def _made(target: fs.Resolved, data: bytes) -> FileChange:
    diff, truncated = _text_diff(str(target), data, removed=False)
    return FileChange(path=str(target), kind=FileChangeKind.CREATE, before_sha256=None,
                      after_sha256=sha256(data), diff=diff, truncated=truncated)


def _target(file: _File | fs.Resolved, role: str, protected: Sequence[str]) -> Target:
    path = file.target if isinstance(file, _File) else file
    protections = file.protections if isinstance(file, _File) else protections_of(path, protected=protected)
    return Target(kind="path", value=str(path), detail=role, protections=protections)


class _PathTool(KnowsProtectedPaths, BuiltinTool[A]):
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})
    timeout_seconds = 60.0

    def plan(self, args: A, ctx: ToolExecutionContext) -> tuple[ToolPreview, Any]:
        """What the call would do (the preview) and what ``apply`` needs to do it."""
        raise NotImplementedError

    def apply(self, plan: Any, ctx: ToolExecutionContext) -> ToolResult:
        raise NotImplementedError

    async def preview_parsed(self, args: A, ctx: ToolExecutionContext) -> ToolPreview:
        require_writable(ctx, self.name)
        return self.plan(args, ctx)[0]

    async def execute_parsed(self, args: A, ctx: ToolExecutionContext) -> ToolResult:
        require_writable(ctx, self.name)
        preview, plan = self.plan(args, ctx)
        if ctx.preview is not None and _shown(ctx.preview) != _shown(preview):
            raise ChangedSincePreview(", ".join(t.value for t in preview.targets))
        approved = {(t.value, t.protections) for t in ctx.approved_protected_targets("path")}
        for t in preview.targets:
            if t.protections and (t.value, t.protections) not in approved:
                raise ToolError(for_person(
                    f"{t.value} is {t.full_detail}. This needs your approval of this exact path; nothing was done.",
                    N_("{path} is protected: changing it needs your approval of this exact path. Nothing was done."),
                    path=t.value), kind=ErrorKind.BUSINESS)
        ctx.check_cancelled()
        return self.apply(plan, ctx)


def _arrived_as_shown(src: _File | trees.Tree, dir_fd: int, name: str, path: Path) -> bool:
    if isinstance(src, _File):
        return arrived.file_as_shown(dir_fd, name, src.data, src.mode)
    return arrived.tree_as_shown(path, src)


def _shown(preview: ToolPreview) -> tuple[Any, ...]:
    return (tuple((t.value, t.detail, t.protections) for t in preview.targets),
            tuple((c.path, c.kind, c.before_sha256, c.after_sha256) for c in preview.file_changes))


def _still(file: _File) -> None:
    """Right before acting: the file still holds what was previewed."""
    if _read(file.target, "source").data != file.data:
        raise ChangedSincePreview(file.target)


def _file_or_folder(target: fs.Resolved, what: str, protected: Sequence[str]) -> _File | trees.Tree:
    """A regular file, or a whole folder read through links-refusing descriptors."""
    st = entries.lstat_entry(target)
    if st is not None and stat.S_ISDIR(st.st_mode):
        if not target.parts:
            raise ToolError(for_person(
                f"{what} {target} is a workspace folder itself; it is not moved, copied or deleted",
                N_("{path} is a workspace folder itself; it is not moved, copied or deleted."), path=str(target)),
                kind=ErrorKind.BUSINESS)
        return trees.read_tree(target, what)
    return _read(target, what, protected)


def _name_of(src: _File | trees.Tree) -> str:
    return (src.target if isinstance(src, _File) else src.root).path.name


def _source_and_destination(source: str, destination: str, ctx: ToolExecutionContext,
                            protected: Sequence[str]) -> tuple[_File | trees.Tree, fs.Resolved]:
    src = entries.entry(source, ctx.write_roots, what="source")
    dst = entries.entry(destination, ctx.write_roots, what="destination")
    if dst.path == src.path or dst.path.is_relative_to(src.path):
        raise ToolError(for_person(f"destination {dst} is inside the source {src}; nothing was done",
                                   N_("The destination {destination} is inside the source {source}; nothing was done."),
                                   destination=str(dst), source=str(src)), kind=ErrorKind.BUSINESS)
    return _file_or_folder(src, "source", protected), dst


def _tree_gone(tree: trees.Tree) -> tuple[FileChange, ...]:
    # A folder's files are listed without diffs: the list is what the person approves.
    return tuple(FileChange(path=tree.path(f.parts), kind=FileChangeKind.DELETE, before_sha256=sha256(f.data),
                            after_sha256=None, diff="") for f in tree.files)


def _tree_made(tree: trees.Tree, destination: fs.Resolved) -> tuple[FileChange, ...]:
    return tuple(FileChange(path=str(destination.path.joinpath(*f.parts)), kind=FileChangeKind.CREATE,
                            before_sha256=None, after_sha256=sha256(f.data), diff="") for f in tree.files)


def _folder_modes(tree: trees.Tree) -> dict[str, int]:
    """The mode of each of the tree's folders where it was (for Revert to make them again)."""
    return {tree.path(parts): mode for parts, mode in tree.folders}


def _folders_at(tree: trees.Tree, base: fs.Resolved) -> tuple[str, ...]:
    """The tree's folders placed at ``base``, parents first."""
    return tuple(str(base.path.joinpath(*parts)) for parts, _mode in tree.folders)


_MAX_NAMED_INSIDE = 5


def _folder_target(tree: trees.Tree, role: str, protected: Sequence[str]) -> Target:
    count = deferred(N_("folder with {files} files and {folders} sub-folders"), files=len(tree.files),
                     folders=len(tree.folders) - 1)
    # A protected file inside (a .git folder, a hard link) makes the folder need the same exact approval.
    watched = runs_later.watched_in(tree.root.root, protected)  # once for the whole tree
    inside = [protection for path in (tree.path(f.parts) for f in tree.files)
              for protection in protections_of(fs.Resolved(Path(path), tree.root.root), inside=path,
                                               protected=protected, watched=watched)]
    if len(inside) > _MAX_NAMED_INSIDE:
        more = Protection(reason=ProtectionReason.MORE_INSIDE, more=len(inside) - _MAX_NAMED_INSIDE)
        inside = [*inside[:_MAX_NAMED_INSIDE], more]
    # Role and count kept re-translatable (a live language switch shows them again).
    return Target(kind="path", value=str(tree.root),
                  detail=deferred(N_("{role}; {count}"), role=deferred(role), count=count),
                  protections=(*protections_of(tree.root, protected=protected, watched=watched), *inside))


class MoveArguments(Arguments):
    # Both ends are written: the source goes away, the destination comes to be.
    source: Annotated[str, fs.path_argument("The file or folder to move."), WRITES]
    destination: Annotated[str, fs.path_argument("Its new path (not an existing file)."), WRITES]


class MovePath(_PathTool[MoveArguments]):
    name = "move_path"
    role = ToolRole.MOVE
    description = ("Move or rename a file or a whole folder inside the workspace. The destination must not "
                   "exist (nothing is replaced); its folder must exist. Symbolic links (also inside a folder) "
                   "are refused.")
    arguments = MoveArguments
    title = N_("Move or rename")
    catalog_description = N_("Moves or renames a file or folder in your workspace; never replaces an existing file.")

    def plan(self, args: MoveArguments, ctx: ToolExecutionContext) -> tuple[ToolPreview, Any]:
        protected = self.protected_paths()
        src, dst = _source_and_destination(args.source, args.destination, ctx, protected)
        _require_absent(dst, "destination", _name_of(src))
        if isinstance(src, trees.Tree):
            preview = ToolPreview(targets=(_folder_target(src, N_("move folder from"), protected),
                                           _target(dst, N_("move to"), protected)),
                                  file_changes=_tree_gone(src) + _tree_made(src, dst),
                                  summary=deferred(N_("Move the folder {source} to {destination}"),
                                                   source=src.root, destination=dst))
            return preview, (src, dst, preview.file_changes)
        preview = ToolPreview(targets=(_target(src, N_("move from"), protected), _target(dst, N_("move to"), protected)),
                              file_changes=(_gone(src), _made(dst, src.data)),
                              summary=deferred(N_("Move {source} to {destination}"), source=src.target, destination=dst))
        return preview, (src, dst, preview.file_changes)

    def apply(self, plan: Any, ctx: ToolExecutionContext) -> ToolResult:
        src, dst, changes = plan
        if isinstance(src, _File):
            _still(src)  # a folder was read again by ``run`` right before: the same tree was shown
        source = src.target if isinstance(src, _File) else src.root
        src_dir, src_name = fs.open_parent(source)
        try:
            dst_dir, dst_name = fs.open_parent(dst)
            try:
                entries.rename_noreplace(src_dir, src_name, dst_dir, dst_name)
                arrived.put_back_unless(_arrived_as_shown(src, dst_dir, dst_name, dst.path), source=source,
                                        arrived=dst, arrived_at=(dst_dir, dst_name), source_at=(src_dir, src_name),
                                        action="moved")
            except FileExistsError as exc:
                raise ToolError(for_person(f"{dst} appeared meanwhile; nothing was moved",
                                           N_("{path} appeared meanwhile; nothing was moved."), path=str(dst)),
                                kind=ErrorKind.BUSINESS) from exc
            except OSError as exc:
                if exc.errno == errno.EXDEV:
                    raise ToolError(for_person(
                        f"{source} and {dst} are on different file systems; use copy_path then delete_path. "
                        "Nothing was moved.",
                        N_("{source} and {destination} are on different file systems; nothing was moved."),
                        source=str(source), destination=str(dst)), kind=ErrorKind.BUSINESS) from exc
                raise fs.os_error(exc, source, "move") from exc
            finally:
                os.close(dst_dir)
        finally:
            os.close(src_dir)
        ctx.host.file_mutated(str(source))
        ctx.host.file_mutated(str(dst))
        metadata: dict[str, Any] = {"source": str(source), "destination": str(dst)}
        if isinstance(src, trees.Tree):
            return ToolResult.ok(f"Moved {named(source)} to {named(dst)}.", metadata=metadata, file_changes=changes,
                                 folders_created=_folders_at(src, dst), folders_removed=_folders_at(src, src.root),
                                 removed_folder_modes=_folder_modes(src))
        return ToolResult.ok(f"Moved {named(source)} to {named(dst)}.", metadata=metadata, file_changes=changes)


class CopyArguments(Arguments):
    source: Annotated[str, fs.path_argument("The file or folder to copy."), READS]
    destination: Annotated[str, fs.path_argument("The new path."), WRITES]


class CopyPath(_PathTool[CopyArguments]):
    name = "copy_path"
    role = ToolRole.CREATE
    description = ("Copy a file or a whole folder inside the workspace (content and permissions). The "
                   "destination must not exist; its folder must exist. Symbolic links (also inside a folder) "
                   "are refused.")
    arguments = CopyArguments
    title = N_("Copy file")
    catalog_description = N_("Copies a file or folder in your workspace; never replaces an existing file.")

    def plan(self, args: CopyArguments, ctx: ToolExecutionContext) -> tuple[ToolPreview, Any]:
        protected = self.protected_paths()
        src, dst = _source_and_destination(args.source, args.destination, ctx, protected)
        _require_absent(dst, "destination", _name_of(src))
        if isinstance(src, trees.Tree):
            preview = ToolPreview(targets=(_folder_target(src, N_("copy folder from"), protected),
                                           _target(dst, N_("copy to"), protected)),
                                  file_changes=_tree_made(src, dst),
                                  summary=deferred(N_("Copy the folder {source} to {destination}"),
                                                   source=src.root, destination=dst))
            return preview, (src, dst, preview.file_changes)
        preview = ToolPreview(targets=(_target(src, N_("copy from"), protected), _target(dst, N_("copy to"), protected)),
                              file_changes=(_made(dst, src.data),),
                              summary=deferred(N_("Copy {source} to {destination}"), source=src.target, destination=dst))
        return preview, (src, dst, preview.file_changes)

    def apply(self, plan: Any, ctx: ToolExecutionContext) -> ToolResult:
        src, dst, changes = plan
        if isinstance(src, trees.Tree):
            try:
                trees.copy_tree(src, dst)
            except FileExistsError as exc:
                raise ToolError(for_person(f"{dst} appeared meanwhile; nothing was copied",
                                           N_("{path} appeared meanwhile; nothing was copied."), path=str(dst)),
                                kind=ErrorKind.BUSINESS) from exc
            except OSError as exc:
                raise fs.os_error(exc, dst, "copy the folder to") from exc
            ctx.host.file_mutated(str(dst))
            return ToolResult.ok(f"Copied the folder {named(src.root)} to {named(dst)} ({len(src.files)} files).",
                                 metadata={"source": str(src.root), "destination": str(dst)}, file_changes=changes,
                                 folders_created=_folders_at(src, dst))
        _still(src)
        atomic_write(dst, src.data, expect_sha256=ABSENT, check_cancelled=ctx.check_cancelled,
                     limit=MAX_FILE_BYTES, mode=src.mode)
        ctx.host.file_mutated(str(dst))
        return ToolResult.ok(f"Copied {named(src.target)} to {named(dst)} ({len(src.data)} bytes).",
                             metadata={"source": str(src.target), "destination": str(dst)}, file_changes=changes)


def _delete_across(src: _File, src_dir: int, name: str, trash: Path, cause: OSError) -> None:
    """Delete ``src`` to a trash on another file system: its name is first taken away in one step
    (renamed aside in its own folder) and what it held checked, then the trash gets a durable
    copy and the aside name goes. Checking and then erasing the name itself would erase a save
    made between the two; after the rename such a save makes a new file at the name instead."""
    aside = f".{name[:100]}.{secrets.token_hex(4)}.echo-desk-deleting"
    try:
        entries.rename_noreplace(src_dir, name, src_dir, aside)
    except OSError as exc:
        raise fs.os_error(exc, src.target, "move to the trash") from cause
    arrived.put_back_unless(arrived.file_as_shown(src_dir, aside, src.data, src.mode), source=src.target,
                            arrived=src.target.path.with_name(aside), arrived_at=(src_dir, aside),
                            source_at=(src_dir, name), action="deleted")
    try:
        atomic_write(fs.Resolved(trash / name, trash), src.data, expect_sha256=ABSENT, mode=PRIVATE_FILE)
    except BaseException as failed:
        try:  # the name back as it was; the copy's own error says what failed
            entries.rename_noreplace(src_dir, aside, src_dir, name)
        except OSError as exc:
            raise ToolError(for_person(
                f"{src.target} could not be copied to Echo Desk's trash ({failed}) nor put back "
                f"({exc.strerror}): it is now at {src.target.path.with_name(aside)}. Nothing else was done.",
                N_("{path} could not be copied to Echo Desk's trash ({error}) nor put back ({cause}): it is now "
                   "at {now_at}. Nothing else was done."),
                path=str(src.target), error=str(failed), cause=str(exc.strerror),
                now_at=str(src.target.path.with_name(aside))), kind=ErrorKind.BUSINESS) from exc
        raise
    os.unlink(aside, dir_fd=src_dir)


class DeleteArguments(Arguments):
    path: Annotated[str, fs.path_argument("The file or folder to delete."), WRITES]


class DeletePath(_PathTool[DeleteArguments]):
    name = "delete_path"
    role = ToolRole.DELETE
    description = ("Delete a file or a whole folder inside the workspace. It is moved to Echo Desk's trash "
                   "(the person can restore it), never erased. Symbolic links (also inside a folder) are refused.")
    arguments = DeleteArguments
    title = N_("Delete file")
    catalog_description = N_("Moves a file or folder of your workspace to Echo Desk's trash, from where Revert "
                             "restores it.")

    def plan(self, args: DeleteArguments, ctx: ToolExecutionContext) -> tuple[ToolPreview, Any]:
        protected = self.protected_paths()
        src = _file_or_folder(entries.entry(args.path, ctx.write_roots, what="path"), "path", protected)
        if isinstance(src, trees.Tree):
            preview = ToolPreview(targets=(_folder_target(src, N_("delete folder (to Echo Desk's trash)"), protected),),
                                  file_changes=_tree_gone(src),
                                  summary=deferred(N_("Delete the folder {path} (to Echo Desk's trash)"), path=src.root))
            return preview, (src, preview.file_changes)
        preview = ToolPreview(targets=(_target(src, N_("delete (to Echo Desk's trash)"), protected),),
                              file_changes=(_gone(src),),
                              summary=deferred(N_("Delete {path} (to Echo Desk's trash)"), path=src.target))
        return preview, (src, preview.file_changes)

    def apply(self, plan: Any, ctx: ToolExecutionContext) -> ToolResult:
        src, changes = plan
        if isinstance(src, trees.Tree):
            return self._delete_folder(src, changes, ctx)
        _still(src)
        trash = paths.trash_dir()
        src_dir, name = fs.open_parent(src.target)
        trash_fd = os.open(trash, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            try:
                entries.rename_noreplace(src_dir, name, trash_fd, name)
                arrived.put_back_unless(arrived.file_as_shown(trash_fd, name, src.data, src.mode), source=src.target,
                                        arrived=trash / name, arrived_at=(trash_fd, name), source_at=(src_dir, name),
                                        action="deleted")
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise fs.os_error(exc, src.target, "move to the trash") from exc
                _delete_across(src, src_dir, name, trash, exc)
            # Echo Desk's data folder holds only private files (the mode is in the change
            # journal, which Revert restores from); not a file with other names (their mode too).
            tighten_file(name, dir_fd=trash_fd)
            with contextlib.suppress(OSError):
                os.fsync(src_dir)
        finally:
            os.close(trash_fd)
            os.close(src_dir)
        ctx.host.file_mutated(str(src.target))
        return ToolResult.ok(f"Deleted {named(src.target)} (moved to Echo Desk's trash: {named(trash / name)}).",
                             metadata={"path": str(src.target), "trash": str(trash / name)}, file_changes=changes)

    @staticmethod
    def _delete_folder(src: trees.Tree, changes: tuple[FileChange, ...], ctx: ToolExecutionContext) -> ToolResult:
        trash = paths.trash_dir()
        src_dir, name = fs.open_parent(src.root)
        trash_fd = os.open(trash, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            try:
                entries.rename_noreplace(src_dir, name, trash_fd, name)
                arrived.put_back_unless(arrived.tree_as_shown(trash / name, src), source=src.root, arrived=trash / name,
                                        arrived_at=(trash_fd, name), source_at=(src_dir, name), action="deleted")
                tighten_tree(trash / name)  # private, as everything in Echo Desk's data folder
            except OSError as exc:
                if exc.errno == errno.EXDEV:  # a folder is never copied and erased piecemeal
                    raise ToolError(for_person(
                        f"{src.root} is on another file system than Echo Desk's trash; nothing was deleted",
                        N_("{path} is on another file system than Echo Desk's trash; nothing was deleted."),
                        path=str(src.root)), kind=ErrorKind.BUSINESS) from exc
                raise fs.os_error(exc, src.root, "move to the trash") from exc
            with contextlib.suppress(OSError):
                os.fsync(src_dir)
        finally:
            os.close(trash_fd)
            os.close(src_dir)
        ctx.host.file_mutated(str(src.root))
        return ToolResult.ok(f"Deleted the folder {named(src.root)} with {len(src.files)} files (moved to Echo Desk's "
                             f"trash: {trash / name}).",
                             metadata={"path": str(src.root), "trash": str(trash / name)}, file_changes=changes,
                             folders_removed=_folders_at(src, src.root), removed_folder_modes=_folder_modes(src))


class CreateFolderArguments(Arguments):
    path: Annotated[str, fs.path_argument("The folder to create."), WRITES]


class CreateFolder(_PathTool[CreateFolderArguments]):
    name = "create_folder"
    role = ToolRole.CREATE
    description = ("Create a folder inside the workspace, with any missing parent folders. "
                   "Fails if something already exists at that path.")
    arguments = CreateFolderArguments
    title = N_("Create folder")
    catalog_description = N_("Creates a folder (and missing parent folders) in your workspace.")

    def plan(self, args: CreateFolderArguments, ctx: ToolExecutionContext) -> tuple[ToolPreview, Any]:
        target = fs.resolve(args.path, ctx.write_roots)
        if os.path.lexists(target.path):
            raise ToolError(for_person(f"{target} already exists", N_("{path} already exists."), path=str(target)),
                            kind=ErrorKind.BUSINESS)
        new_folders(target, including_itself=True)
        preview = ToolPreview(targets=(_target(target, N_("new folder"), self.protected_paths()),),
                              summary=deferred(N_("Create the folder {path}"), path=target))
        return preview, target

    def apply(self, plan: Any, ctx: ToolExecutionContext) -> ToolResult:
        target = plan
        missing = new_folders(target, including_itself=True)
        try:
            parent, name = fs.open_parent(target, create=True)
            try:
                os.mkdir(name, 0o777, dir_fd=parent)
            finally:
                os.close(parent)
        except FileExistsError as exc:
            # Not ours: neither reported as created nor recorded for Revert to take away.
            raise ToolError(for_person(f"{target} appeared meanwhile (another program made it); nothing was created",
                                       N_("{path} appeared meanwhile (another program made it); nothing was created."),
                                       path=str(target)), kind=ErrorKind.BUSINESS) from exc
        except OSError as exc:
            raise fs.os_error(exc, target, "create") from exc
        ctx.host.file_mutated(str(target))
        return ToolResult.ok(f"Created the folder {named(target)}.", metadata={"path": str(target)},
                             folders_created=tuple(missing))
