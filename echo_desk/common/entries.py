"""Confined directory entries for the tools that move, copy, delete and make them.

Unlike ``fs.resolve`` the last component is not followed: moving or deleting a symbolic link
must act on the link, never on what it points to. The parent folder is resolved and confined
as usual; every operation then goes through folder descriptors opened without following links.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from echo_desk.common import fs
from echo_desk.i18n import N_, for_person, quoted_later
from echo_desk.tools import ErrorKind, ToolError

_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_renameat2 = getattr(_libc, "renameat2", None)


def entry(raw: object, roots: Sequence[Path], *, what: str) -> fs.Resolved:
    """``raw`` as an entry inside ``roots``: its folder resolved and confined, its name kept."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError(for_person(f"{what} must be a non-empty string", N_("The agent gave no path.")),
                        kind=ErrorKind.VALIDATION)
    trimmed = raw.rstrip("/") or raw
    folder, name = os.path.split(trimmed)
    if name in ("", ".", "..") or "\x00" in raw:
        raise ToolError(for_person(f"{what} {raw!r} does not name a file or folder",
                                   N_("{path} does not name a file or folder."), path=quoted_later(raw)),
                        kind=ErrorKind.VALIDATION)
    parent = fs.resolve(folder or ".", roots, what=what)
    return fs.Resolved(parent.path / name, parent.root)


def lstat_entry(target: fs.Resolved) -> os.stat_result | None:
    """The entry itself (a link is not followed); ``None`` when it does not exist."""
    try:
        dir_fd, name = fs.open_parent(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise fs.os_error(exc, target, "open the folder of") from exc
    try:
        return fs.lstat_in(dir_fd, name)
    finally:
        os.close(dir_fd)


def require_regular(target: fs.Resolved, st: os.stat_result | None, what: str) -> os.stat_result:
    if st is None:
        raise ToolError(for_person(f"{what} {target} does not exist", N_("{path} does not exist"), path=str(target)),
                        kind=ErrorKind.BUSINESS)
    if stat.S_ISLNK(st.st_mode):
        raise ToolError(for_person(f"{what} {target} is a symbolic link; only regular files are handled here",
                                   N_("{path} is a symbolic link; only regular files are handled here."),
                                   path=str(target)), kind=ErrorKind.BUSINESS)
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(for_person(f"{what} {target} is a folder; this tool moves, copies and deletes files only",
                                   N_("{path} is a folder; this tool moves, copies and deletes files only."),
                                   path=str(target)), kind=ErrorKind.BUSINESS)
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(for_person(f"{what} {target} is not a regular file", N_("{path} is not a regular file."),
                                   path=str(target)), kind=ErrorKind.BUSINESS)
    return st


def rename_noreplace(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
    """Rename without ever replacing an existing destination (``FileExistsError`` then)."""
    if _renameat2 is not None:
        if _renameat2(src_dir, src.encode(), dst_dir, dst.encode(), _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS):  # the filesystem does support the flag
            raise OSError(code, os.strerror(code), dst)
    # No RENAME_NOREPLACE here: a hard link refuses an existing name, then the old name goes.
    os.link(src, dst, src_dir_fd=src_dir, dst_dir_fd=dst_dir, follow_symlinks=False)
    os.unlink(src, dir_fd=src_dir)

