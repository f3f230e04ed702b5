"""Crash-safe replacement of a file: temp file in the same folder, fsync, rename, fsync folder.

Readers and a crash at any moment see either the old or the new content, never a mix. A
killed save leaves a temp file named after its process; the next save in that folder (and
``sweep_stale_temps`` at start-up) removes the ones whose process is gone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass

from echo_desk.common import xattrs
from echo_desk.common.fs import Resolved, lstat_in, open_parent, os_error, read_regular
from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, ToolError

TEMP_SUFFIX = ".echo-desk-tmp"
_TEMP_RE = re.compile(r"^\..*\.(\d+)\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$")
#: Absent file (for ``expect_sha256``): the target must not exist yet.
ABSENT = "absent"
#: A failed write's words for the person: why, then that the file is as it was (a message that
#: says the outcome itself quotes only the ``error``: ``failure_text.failure_reason``).
LEFT_UNCHANGED = N_("{error} The original file is unchanged.")


class ChangedSincePreview(ToolError):
    def __init__(self, target: object) -> None:
        super().__init__(for_person(
            f"{target} changed since preview (another program wrote it); nothing was written. "
            "Read the file again and redo the change.",
            N_("{path} changed since you saw it (another program wrote it); nothing was written."),
            path=str(target)), kind=ErrorKind.BUSINESS)


@dataclass(frozen=True)
class WriteOutcome:
    created: bool
    mode: int


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(dir_fd: int) -> int:
    removed = 0
    for name in os.listdir(dir_fd):
        match = _TEMP_RE.match(name)
        if match and not _pid_alive(int(match.group(1))):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
                removed += 1
    return removed


def sweep_stale_temps(folder: str | os.PathLike[str]) -> int:
    """Remove temp files left by saves whose process died. Returns how many were removed."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return _sweep(fd)
    finally:
        os.close(fd)


def _current_sha(dir_fd: int, name: str, limit: int) -> str:
    st = lstat_in(dir_fd, name)
    if st is None:
        return ABSENT
    if not stat.S_ISREG(st.st_mode):
        return "not-a-regular-file"
    data, _ = read_regular(dir_fd, name, limit=max(limit, st.st_size))
    return sha256(data)


def _keep_attributes(dir_fd: int, name: str, new_fd: int, target: Resolved) -> None:
    """The old file's extended attributes (its ACL, labels) on the new one (``xattrs``)."""
    old_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        xattrs.carry_over(old_fd, new_fd, target)
    finally:
        os.close(old_fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[: 1 << 20])
        view = view[written:]


def atomic_write(
    target: Resolved,
    data: bytes,
    *,
    expect_sha256: str,
    allow_hardlink: bool = False,
    create_parents: bool = False,
    check_cancelled: Callable[[], None] | None = None,
    limit: int = 1 << 30,
    mode: int | None = None,
) -> WriteOutcome:
    """Replace ``target`` with ``data`` if its content still hashes to ``expect_sha256``.

    ``expect_sha256`` is ``ABSENT`` when the file must not exist. The file keeps its mode
    (new files get 0666 minus umask) unless ``mode`` is given (an undo restores the old one). Raises ``ToolError`` and leaves the file untouched on
    any failure, including cancellation before the rename.
    """
    try:
        dir_fd, name = open_parent(target, create=create_parents)
    except OSError as exc:
        raise os_error(exc, target, "open the folder of") from exc
    tmp_name = ""
    try:
        _sweep(dir_fd)
        st = lstat_in(dir_fd, name)
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise ToolError(for_person(f"{target} is a symbolic link now; nothing was written",
                                           N_("{path} became a symbolic link; nothing was written."),
                                           path=str(target)), kind=ErrorKind.BUSINESS)
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(for_person(f"{target} is not a regular file; nothing was written",
                                           N_("{path} is not a regular file; nothing was written."),
                                           path=str(target)), kind=ErrorKind.BUSINESS)
            if st.st_nlink > 1 and not allow_hardlink:
                raise ToolError(for_person(
                    f"{target} has {st.st_nlink} hard links; writing it needs your approval of that "
                    "exact file. Nothing was written.",
                    N_("{path} has {count} hard links; writing it needs your approval of that exact file. "
                       "Nothing was written."), path=str(target), count=st.st_nlink), kind=ErrorKind.BUSINESS)
        if _current_sha(dir_fd, name, limit) != expect_sha256:
            raise ChangedSincePreview(target)
        if mode is not None:
            mode = stat.S_IMODE(mode)
        elif st is not None:
            mode = stat.S_IMODE(st.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        # Keep the temp name short enough for NAME_MAX whatever the target's name is.
        tmp_name = f".{name[:100]}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        fd = os.open(
            tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd
        )
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            if st is not None and (st.st_uid != os.geteuid() or st.st_gid != os.getegid()):
                with contextlib.suppress(OSError):  # only root may give files away; keep ours then
                    os.fchown(fd, st.st_uid, st.st_gid)
            if st is not None:
                _keep_attributes(dir_fd, name, fd, target)
            os.fsync(fd)
        finally:
            os.close(fd)
        if check_cancelled is not None:
            check_cancelled()
        # Re-check right before the rename: narrows the window for a writer racing us.
        if _current_sha(dir_fd, name, limit) != expect_sha256:
            raise ChangedSincePreview(target)
        os.rename(tmp_name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        tmp_name = ""
        os.fsync(dir_fd)
        return WriteOutcome(created=st is None, mode=mode)
    except OSError as exc:
        err = os_error(exc, target, "write")
        raise ToolError(for_person(f"{err.message}; the original file is unchanged",
                                   LEFT_UNCHANGED, error=err.message),
                        kind=err.kind) from exc
    finally:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name, dir_fd=dir_fd)
        os.close(dir_fd)
