"""Files and folders only their owner can read: the audit log, conversations, settings, caches.

They hold commands, file contents and messages (secrets are redacted by shape, but not every
secret has a shape), so they are created 0600 inside 0700 folders, and tightened when an older
version left them readable by others. SQLite gives its ``-wal``/``-shm``/``-journal`` files the
database file's own mode, so creating the database 0600 first covers them. Everything Echo Desk
writes in its settings, data and cache folders goes through the helpers here (never a plain
``open``/``mkdir``, which the umask leaves readable by others).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import sqlite3  # loaded by the first database opened: finding a folder needs no SQLite

FILE_MODE = 0o600
DIR_MODE = 0o700
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def _tighten(path: Path, mode: int) -> None:
    """Drop group/other access from a file or folder we own (never someone else's)."""
    with contextlib.suppress(OSError):
        st = os.stat(path)
        if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o077 & 0o7777 | (mode & 0o700))


def private_dir(path: Path) -> Path:
    """``path`` as a folder (parents created as usual), itself 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if os.name == "posix":
        _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 if missing (in a 0700 folder); tighten it if not."""
    private_dir(path.parent)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, FILE_MODE)
    os.close(fd)
    if os.name == "posix":
        for candidate in (path, *(Path(f"{path}{suffix}") for suffix in _SQLITE_COMPANIONS)):
            if candidate.exists():
                _tighten(candidate, FILE_MODE)
    return path


def connect_private(path: Path | str, **kwargs: Any) -> sqlite3.Connection:
    """``sqlite3.connect`` to a database file that only its owner can read."""
    import sqlite3

    if str(path) != ":memory:":
        private_file(Path(path))
    conn: sqlite3.Connection = sqlite3.connect(str(path), **kwargs)
    return conn


@contextlib.contextmanager
def one_use_private(path: Path, schema: str, *pragmas: str) -> Iterator[sqlite3.Connection]:
    """A small private database opened for one use (a store written and read now and then, never
    kept open): ``pragmas`` then ``schema`` run first, the block is one transaction, and the
    connection is closed after it."""
    conn = connect_private(path, timeout=10)
    try:
        for pragma in pragmas:
            conn.execute(pragma)
        conn.executescript(schema)
        with conn:
            yield conn
    finally:
        conn.close()


def open_private(path: Path, mode: Literal["wb", "ab"] = "wb") -> IO[bytes]:
    """``path`` opened for writing (truncated, or appended to), created 0600 in a 0700 folder,
    and tightened if it already existed readable by others."""
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | (os.O_APPEND if mode == "ab" else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    try:
        if os.name == "posix":
            os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) & ~0o077)
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, data: bytes | str) -> None:
    """Write ``path`` whole and atomically (a temporary file beside it, fsync, rename), 0600.
    Its folder is made 0700 if missing (an existing one is left as it is: it may be a workspace's)."""
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def changing_alone(path: Path) -> Iterator[None]:
    """Hold ``path``'s lock (the private file ``.<name>.lock`` beside it) while the block reads and
    rewrites ``path``: processes that change it through here take turns, so none writes back
    what it read before another's change (the app, the CLI and each client's gateway share the
    settings). POSIX only, like the rest of the app."""
    import fcntl

    with open_private(path.with_name(f".{path.name}.lock"), "ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes
        yield


def shares_its_inode(st: os.stat_result) -> bool:
    """A file with other names (hard links): its mode is theirs too, and they may lie outside
    Echo Desk's folders (a workspace file linked to one a web server reads). Making it private
    would change what the person never saw named; the 0700 folder keeps it private instead."""
    return not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1


def tighten_file(name: str, *, dir_fd: int | None = None) -> None:
    """Make the regular file ``name`` 0600, unless it is a link or shares its inode."""
    with contextlib.suppress(OSError):
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and not shares_its_inode(st):
            os.chmod(name, FILE_MODE, dir_fd=dir_fd)


def tighten_tree(path: Path) -> None:
    """Make ``path`` and everything under it private: folders 0700, files 0600 (links are left:
    their own mode means nothing; so are files with other names, see ``shares_its_inode``).
    For what Echo Desk moves into its own folders (the trash)."""
    if os.name != "posix" or path.is_symlink():
        return
    if not path.is_dir():
        tighten_file(str(path))
        return
    for folder, folders, files in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(folder, DIR_MODE)
        for name in files:
            tighten_file(os.path.join(folder, name))
        folders[:] = [f for f in folders if not os.path.islink(os.path.join(folder, f))]
