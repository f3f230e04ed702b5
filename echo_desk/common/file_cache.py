"""A value read from a file, read again only when the file changed or was replaced.

For files another process rewrites while this one runs (the settings, the gateway's tokens):
one ``stat`` per use instead of a read and a parse.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


#: What tells one version of a file from the next (``file_stamp``).
FileStamp = tuple[int, int, int, int]


def file_stamp(path: Path) -> FileStamp | None:
    """The file's identity, modification time and size; ``None`` while it cannot be looked at.
    The inode too: an atomic rewrite (rename) can keep the size and the time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


#: A stamp this recent does not prove the file unchanged: modification times move in the file
#: system's ticks (milliseconds), and inodes are reused, so a file replaced twice within a tick
#: at the same size can show the stamp it had before. Git's index has the same "racy" case.
UNSURE_SECONDS = 2.0


def recently_written(stamp: FileStamp | None) -> bool:
    """``stamp`` is too recent to trust: compare the contents too (``UNSURE_SECONDS``)."""
    return stamp is not None and time.time_ns() - stamp[2] < UNSURE_SECONDS * 1_000_000_000


class ReadWhenChanged(Generic[T]):
    """``read(path)``, cached until the file's identity, size or modification time changes;
    ``missing`` while the file cannot be looked at."""

    def __init__(self, read: Callable[[Path], T], missing: T) -> None:
        self._read = read
        self._missing = missing
        self._stamp: tuple[str, FileStamp] | None = None
        self._value = missing

    def __call__(self, path: Path) -> T:
        seen = file_stamp(path)
        if seen is None:
            return self._missing
        stamp = (str(path), seen)
        if stamp != self._stamp or recently_written(seen):
            self._value, self._stamp = self._read(path), stamp
        return self._value
