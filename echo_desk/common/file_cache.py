"""A value read from a file, read again only when the file changed or was replaced.

For files another process rewrites while this one runs (the settings, the gateway's tokens):
one ``stat`` per use instead of a read and a parse.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


class ReadWhenChanged(Generic[T]):
    """``read(path)``, cached until the file's identity, size or modification time changes;
    ``missing`` while the file cannot be looked at."""

    def __init__(self, read: Callable[[Path], T], missing: T) -> None:
        self._read = read
        self._missing = missing
        self._stamp: tuple[object, ...] | None = None
        self._value = missing

    def __call__(self, path: Path) -> T:
        try:
            st = os.stat(path)
        except OSError:
            return self._missing
        # The inode too: an atomic rewrite (rename) can keep the size and the time.
        stamp = (str(path), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._value, self._stamp = self._read(path), stamp
        return self._value
