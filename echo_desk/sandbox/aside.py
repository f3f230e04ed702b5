"""Moving what a sandboxed command left out of the workspace, and putting files back, through
folders opened without following links (``dirwalk``): what the command left is untrusted. What
is moved goes into Echo Desk's own folder and is made private there (0600 files, 0700 folders),
so nothing in it can run."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Protocol

from echo_desk.sandbox import unlock
from echo_desk.sandbox.dirwalk import Folders

PRIVATE_FILE, PRIVATE_DIR = 0o600, 0o700


class Identity(Protocol):
    """What a read checks the file against (its device and inode)."""

    @property
    def dev(self) -> int: ...
    @property
    def ino(self) -> int: ...


def read(folders: Folders, parts: tuple[str, ...], expected: Identity) -> bytes | None:
    parent = folders.fd(parts[:-1])
    if parent is None:
        return None
    try:
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return None
    return _read_fd(fd, expected)


def read_path(path: str, expected: Identity) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    return _read_fd(fd, expected)


def _read_fd(fd: int, expected: Identity) -> bytes | None:
    """The content of the open file ``fd`` if it is the regular file ``expected`` names (closed after)."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (expected.dev, expected.ino):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_new(parent: int, name: str, data: bytes, mode: int) -> None:
    temporary = f".{name}.echo-desk-{secrets.token_hex(4)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PRIVATE_FILE,
                 dir_fd=parent)
    try:
        os.write(fd, data)
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(temporary, name, src_dir_fd=parent, dst_dir_fd=parent)


def remove(parent: int, name: str) -> None:
    """Remove ``name`` (a file, link or whole folder) under the open folder ``parent``.

    Without recursion, one folder open at a time: a tree the command made can be deeper than
    Python's recursion limit (or the number of descriptors). Each folder's subfolders are moved up
    beside it under unused names, then removed the same way."""
    pending = [name]
    while pending:
        current = pending.pop()
        with contextlib.suppress(OSError):
            st = os.stat(current, dir_fd=parent, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(current, dir_fd=parent)
                continue
            fd = unlock.open_dir(current, parent)  # (one the command made unreadable too)
            try:
                os.chmod(fd, 0o700)  # a folder the command made unwritable is emptied all the same
                with os.scandir(fd) as entries:
                    inner = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
                for child, folder in inner:
                    if not folder:
                        with contextlib.suppress(OSError):
                            os.unlink(child, dir_fd=fd)
                        continue
                    lifted = f".echo-desk-removing-{secrets.token_hex(8)}"
                    try:
                        os.rename(child, lifted, src_dir_fd=fd, dst_dir_fd=parent)
                    except OSError:
                        continue  # (left in place: the folder then stays, and says so)
                    pending.append(lifted)
            finally:
                os.close(fd)
            os.rmdir(current, dir_fd=parent)


#: How deep a copy to another file system goes (each level holds a descriptor and a call); a
#: deeper tree is not kept (it is removed from the workspace all the same).
_MAX_COPY_DEPTH = 200


def _copy_out(parent: int, name: str, destination: Path, depth: int = 0) -> bool:
    """Copy ``name`` (under the open folder ``parent``) to ``destination``, links as links."""
    if depth > _MAX_COPY_DEPTH:
        return False
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(name, dir_fd=parent), destination)
            return True
        if stat.S_ISREG(st.st_mode):
            src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
            try:
                dst = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE_FILE)
                try:
                    while chunk := os.read(src, 1 << 20):
                        os.write(dst, chunk)
                finally:
                    os.close(dst)
            finally:
                os.close(src)
            return True
        if stat.S_ISDIR(st.st_mode):
            os.mkdir(destination, PRIVATE_DIR)
            fd = unlock.open_dir(name, parent)  # (it is removed after the copy)
            try:
                with os.scandir(fd) as entries:
                    names = [e.name for e in entries]
                return all([_copy_out(fd, inner, destination / inner, depth + 1) for inner in names])
            finally:
                os.close(fd)
        return True  # a fifo or a socket holds nothing to keep
    except OSError:
        return False


def private_dirs(base: Path, folder: Path) -> None:
    """``folder`` and the folders between it and ``base`` (made too), each 0700."""
    base.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    current = base
    for part in ("", *folder.relative_to(base).parts):
        current = current / part if part else current
        with contextlib.suppress(FileExistsError):
            os.mkdir(current, PRIVATE_DIR)
        with contextlib.suppress(OSError):
            os.chmod(current, PRIVATE_DIR)


def make_private(path: Path) -> None:
    """What was put aside is only its owner's, and nothing in it can be run: 0600 files, 0700
    folders. Without recursion (a tree the command made can be deeper than Python's limit)."""
    pending = [str(path)]
    while pending:
        current = pending.pop()
        with contextlib.suppress(OSError):
            st = os.lstat(current)
            if stat.S_ISLNK(st.st_mode):
                continue
            if stat.S_ISDIR(st.st_mode):
                os.chmod(current, PRIVATE_DIR)
                pending.extend(os.path.join(current, name) for name in os.listdir(current))
            elif st.st_nlink == 1:  # a file with other names (a hard link) keeps their mode: the folder is 0700
                os.chmod(current, PRIVATE_FILE)


def move_out(parent: int, name: str, destination: Path, base: Path) -> bool:
    """Move ``name`` (under the open folder ``parent``) to ``destination`` inside ``base`` (made
    0700 on the way), copying when it is on another file system; the original goes either way.
    False when it could not be kept (then it is removed all the same)."""
    private_dirs(base, destination.parent)
    try:
        os.rename(name, destination, src_dir_fd=parent)
    except OSError:
        kept = _copy_out(parent, name, destination)
        if not kept:  # a half copy is not kept either
            with contextlib.suppress(OSError):
                folder = os.open(destination.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                try:
                    remove(folder, destination.name)
                finally:
                    os.close(folder)
        remove(parent, name)
        if not kept:
            return False
    make_private(destination)
    return True
