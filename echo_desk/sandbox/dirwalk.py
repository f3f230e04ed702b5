"""Reach a path inside a workspace without following a symbolic link on the way.

What a sandboxed command leaves behind is untrusted: a folder may have become a link to
somewhere else. Everything the guard reads, moves or writes goes through folders opened one
component at a time with ``O_NOFOLLOW`` from the workspace's own folder.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from echo_desk.sandbox import unlock

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
        parent = None
        if parts:
            parent = self.fd(parts[:-1])
            if parent is None:
                return None
        try:
            fd = self._open(parts, parent)
        except PermissionError:
            # Made unreadable by the command: opened up again during the check after it (``unlock``).
            full = "/".join((str(self.root), *parts))
            if not (unlock.path(full) if parent is None else unlock.at(parent, parts[-1], full)):
                return None
            try:
                fd = self._open(parts, parent)
            except OSError:
                return None
        except OSError:
            return None
        self._fds[parts] = fd
        return fd

    def _open(self, parts: tuple[str, ...], parent: int | None) -> int:
        return os.open(self.root, DIR_FLAGS) if parent is None else os.open(parts[-1], DIR_FLAGS, dir_fd=parent)

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
