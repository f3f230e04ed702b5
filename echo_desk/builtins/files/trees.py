"""Whole folders for ``move_path``, ``copy_path`` and ``delete_path``: read confined, copied atomically.

Every folder is opened through descriptors without following links (``fs.DIR_FLAGS``); a
symbolic link, device or socket anywhere inside makes the whole operation refuse, so nothing is
ever followed out of the workspace and Revert can put back every entry it was shown.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass

from echo_desk.common import entries, fs
from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, ToolError

#: A folder operation shows every file for approval: past this many entries it is refused.
MAX_TREE_ENTRIES = 5000
MAX_TREE_BYTES = 100 * 1024 * 1024  # read whole for the preview and the undo copies: kept modest


@dataclass(frozen=True)
class TreeFile:
    parts: tuple[str, ...]  # below the tree's root
    data: bytes
    mode: int


@dataclass(frozen=True)
class Tree:
    """A folder as read: its sub-folders (parents before children, ``()`` is the root) and files."""

    root: fs.Resolved
    folders: tuple[tuple[tuple[str, ...], int], ...]  # (parts, mode)
    files: tuple[TreeFile, ...]

    def path(self, parts: tuple[str, ...]) -> str:
        return str(self.root.path.joinpath(*parts))


def read_tree(target: fs.Resolved, what: str) -> Tree:
    """Everything under the folder ``target``; ``ToolError`` for a link or special file inside."""
    folders: list[tuple[tuple[str, ...], int]] = []
    files: list[TreeFile] = []
    total = 0

    def walk(fd: int, parts: tuple[str, ...]) -> None:
        nonlocal total
        folders.append((parts, stat.S_IMODE(os.fstat(fd).st_mode)))
        for name in sorted(os.listdir(fd)):
            if len(folders) + len(files) >= MAX_TREE_ENTRIES:
                raise ToolError(for_person(
                    f"{what} {target} holds more than {MAX_TREE_ENTRIES} entries; the limit for one call is that. "
                    "Nothing was done.",
                    N_("{path} holds more than {limit} entries, the limit for one call. Nothing was done."),
                    path=str(target), limit=MAX_TREE_ENTRIES), kind=ErrorKind.BUSINESS)
            inner = (*parts, name)
            shown = target.path.joinpath(*inner)
            st = fs.lstat_in(fd, name)
            if st is None:
                continue
            if stat.S_ISLNK(st.st_mode):
                raise ToolError(for_person(
                    f"{what} {target} contains the symbolic link {shown}; folders holding links are "
                    "not handled (links are never followed). Nothing was done.",
                    N_("{path} contains the symbolic link {link}; folders holding links are not handled. "
                       "Nothing was done."),
                    path=str(target), link=str(shown)), kind=ErrorKind.BUSINESS)
            if stat.S_ISDIR(st.st_mode):
                child = os.open(name, fs.DIR_FLAGS, dir_fd=fd)
                try:
                    walk(child, inner)
                finally:
                    os.close(child)
            elif stat.S_ISREG(st.st_mode):
                data, fst = fs.read_regular(fd, name, limit=MAX_TREE_BYTES - total)
                total += len(data)
                if total > MAX_TREE_BYTES:
                    raise ToolError(for_person(
                        f"{what} {target} holds more than {MAX_TREE_BYTES} bytes; the limit for one call is that. "
                        "Nothing was done.",
                        N_("{path} holds more than {limit} bytes, the limit for one call. Nothing was done."),
                        path=str(target), limit=MAX_TREE_BYTES), kind=ErrorKind.BUSINESS)
                files.append(TreeFile(inner, data, stat.S_IMODE(fst.st_mode)))
            else:
                raise ToolError(for_person(
                    f"{what} {target} contains {shown}, which is not a regular file or folder. Nothing was done.",
                    N_("{path} contains {entry}, which is not a regular file or folder. Nothing was done."),
                    path=str(target), entry=str(shown)), kind=ErrorKind.BUSINESS)

    try:
        fd = fs.open_dir(target.root, target.parts)
    except OSError as exc:
        raise fs.os_error(exc, target, "open") from exc
    try:
        walk(fd, ())
    except OSError as exc:
        raise fs.os_error(exc, target, "read") from exc
    finally:
        os.close(fd)
    return Tree(target, tuple(folders), tuple(files))


def copy_tree(tree: Tree, destination: fs.Resolved) -> None:
    """Write ``tree`` at ``destination`` (which must not exist): built under a hidden name beside
    it, then renamed in one step, so a failure leaves no half copy."""
    parent, name = fs.open_parent(destination)
    temp = f".{name}.echo-desk-copy-{secrets.token_hex(4)}"
    try:
        os.mkdir(temp, 0o700, dir_fd=parent)
        try:
            for parts, mode in tree.folders:
                fd = _open_inside(parent, (temp, *parts), create_last=bool(parts))
                try:
                    os.chmod(fd, mode)
                finally:
                    os.close(fd)
            for file in tree.files:
                folder = _open_inside(parent, (temp, *file.parts[:-1]), create_last=False)
                try:
                    _write_new(folder, file.parts[-1], file.data, file.mode)
                finally:
                    os.close(folder)
            os.fsync(parent)
            entries.rename_noreplace(parent, temp, parent, name)
        except BaseException:
            with contextlib.suppress(OSError):
                shutil.rmtree(temp, dir_fd=parent)
            raise
    finally:
        os.close(parent)


def _open_inside(parent: int, parts: tuple[str, ...], *, create_last: bool) -> int:
    fd = os.dup(parent)
    try:
        for index, part in enumerate(parts):
            if create_last and index == len(parts) - 1:
                os.mkdir(part, 0o700, dir_fd=fd)
            nfd = os.open(part, fs.DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_new(folder: int, name: str, data: bytes, mode: int) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[: 1 << 20]):]
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)
