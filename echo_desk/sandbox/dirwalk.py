"""Reach a path inside a workspace without following a symbolic link on the way.

What a sandboxed command leaves behind is untrusted: a folder may have become a link to
somewhere else. Everything the guard reads, moves or writes goes through folders opened one
component at a time with ``O_NOFOLLOW`` from the workspace's own folder.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Folders:
    """Opened folders under one root, kept for one pass (``close()`` when done)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fds: dict[tuple[str, ...], int] = {}

    def fd(self, parts: tuple[str, ...]) -> int | None:
        """The folder ``root/parts`` opened without following links, or ``None``."""
        known = self._fds.get(parts)
        if known is not None:
            return known
        try:
            if not parts:
                fd = os.open(self.root, DIR_FLAGS)
            else:
                parent = self.fd(parts[:-1])
                if parent is None:
                    return None
                fd = os.open(parts[-1], DIR_FLAGS, dir_fd=parent)
        except OSError:
            return None
        self._fds[parts] = fd
        return fd

    def forget(self, parts: tuple[str, ...]) -> None:
        """Close what was opened at or below ``parts`` (it moved or was removed)."""
        for key in [k for k in self._fds if k[: len(parts)] == parts]:
            with contextlib.suppress(OSError):
                os.close(self._fds.pop(key))

    def lstat(self, parts: tuple[str, ...]) -> os.stat_result | None:
        if not parts:
            try:
                return os.lstat(self.root)
            except OSError:
                return None
        parent = self.fd(parts[:-1])
        if parent is None:
            return None
        try:
            return os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except OSError:
            return None

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
