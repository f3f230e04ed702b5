"""Files and folders only their owner can read: the audit log, conversations, settings, caches.

They hold commands, file contents and messages (secrets are redacted by shape, but not every
secret has a shape), so they are created 0600 inside 0700 folders, and tightened when an older
version left them readable by others. SQLite gives its ``-wal``/``-shm`` files the database
file's own mode, so creating the database 0600 first covers them.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

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
    if str(path) != ":memory:":
        private_file(Path(path))
    conn: sqlite3.Connection = sqlite3.connect(str(path), **kwargs)
    return conn
