"""After a command, the folders of its workspace are opened to their owner again where the
guard must look into them or act in them.

A sandboxed command runs as the person (its user namespace maps them), so it may change the
mode of any folder of the workspace. ``chmod 311 .git`` leaves git able to open
``.git/commondir`` by name but makes a listing of ``.git`` fail; ``chmod 555 .git`` leaves it
readable but lets nothing in it be renamed or removed. Either way the check after the command
would miss what was planted, or fail to move it (and say it had). So, during that check
(``unlocking``), a folder inside the workspace that cannot be read, searched or changed gets its
owner's read, write and search bits back before it is looked at again, and is reported. Only a
folder the command could have made so: one whose change time is not older than the snapshot
before it (a program cannot set a change time back). A folder the person locked before is theirs,
and is left as it is. Before a command (and for the file tools) nothing is changed: outside
``unlocking`` these do nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
from collections.abc import Iterable, Iterator

#: What the owner needs to list a folder, reach what is in it and move it out.
OWNER = stat.S_IRWXU
_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC


class Unlocking:
    """The folders (absolute) given back to their owner during one check after a command."""

    def __init__(self, roots: Iterable[str], changed_since_ns: int = 0) -> None:
        self.roots = tuple(r.rstrip("/") or "/" for r in roots)
        #: Folders whose change time is older were locked before the command: not opened.
        self.changed_since_ns = changed_since_ns
        self.opened: list[str] = []

    def inside(self, path: str) -> bool:
        return any(path == r or path.startswith(r + "/") for r in self.roots)


_current: contextvars.ContextVar[Unlocking | None] = contextvars.ContextVar("echo_desk_sandbox_unlocking",
                                                                              default=None)


@contextlib.contextmanager
def unlocking(roots: Iterable[str], changed_since_ns: int = 0) -> Iterator[Unlocking]:
    """While the check after a command runs: folders under ``roots`` changed since
    ``changed_since_ns`` (a ``time.time_ns`` value) may be opened up."""
    state = Unlocking(roots, changed_since_ns)
    token = _current.set(state)
    try:
        yield state
    finally:
        _current.reset(token)


def path(folder: str) -> bool:
    """``folder`` (absolute, reached without following a link) could not be read. During a check,
    and inside its workspace, give its owner read, write and search again; True when it was (read
    it again)."""
    state = _current.get()
    if state is None or not state.inside(folder):
        return False
    try:
        fd = os.open(folder, _PATH_FLAGS)
    except OSError:
        return False
    try:
        if os.path.realpath(f"/proc/self/fd/{fd}") != folder:
            return False  # reached through a link: not this workspace's folder
        return _open_up(fd, folder, state)
    finally:
        os.close(fd)


def at(parent: int, name: str, folder: str) -> bool:
    """As ``path`` for ``name`` in the open folder ``parent`` (``folder`` is its full path)."""
    state = _current.get()
    if state is None or not state.inside(folder):
        return False
    try:
        fd = os.open(name, _PATH_FLAGS, dir_fd=parent)
    except OSError:
        return False
    try:
        return _open_up(fd, folder, state)
    finally:
        os.close(fd)


def held(fd: int, folder: str) -> None:
    """The open folder ``fd`` (``folder``), where the guard is about to move or write: give its
    owner read, write and search if it lacks them (during a check only)."""
    state = _current.get()
    if state is not None and state.inside(folder):
        _open_up(fd, folder, state)


def open_dir(name: str, parent: int) -> int:
    """Open the folder ``name`` under ``parent`` for reading, without following a link; one the
    command made unreadable gets its owner's bits back first (used only on what the guard moves
    out or removes). Raises ``OSError`` as ``os.open`` does."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=parent)
    except PermissionError:
        fd = os.open(name, _PATH_FLAGS, dir_fd=parent)
        try:
            st = os.fstat(fd)
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(st.st_mode) | OWNER)
        finally:
            os.close(fd)
        return os.open(name, flags, dir_fd=parent)


def _open_up(fd: int, folder: str, state: Unlocking) -> bool:
    try:
        st = os.fstat(fd)
        if not stat.S_ISDIR(st.st_mode) or st.st_mode & OWNER == OWNER or st.st_uid != os.geteuid():
            return False
        if st.st_ctime_ns < state.changed_since_ns:
            return False  # locked before the command: the person's own doing, and nothing planted in it since
        os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(st.st_mode) | OWNER)
    except OSError:
        return False
    if folder not in state.opened:
        state.opened.append(folder)
    return True
