"""Read-only stand-ins for protected paths that do not exist yet (``.echo-desk/``, ``.bashrc``, …).

A mount needs something at its path, and bwrap can only make that mount point in the real
workspace (the workspace is a bind mount of the real folder; a mount namespace has no private
"negative" entries, Landlock cannot refuse one name under a writable folder, and seccomp cannot
read paths). So bwrap creates an empty folder or file there, covers it read-only for the
command, and Echo Desk removes it again when the last command using it ends — if it is still
empty. While a command runs, the person sees that empty placeholder.

Several commands can share a placeholder: removing it while another sandbox still has it
mounted would detach that sandbox's read-only cover (the kernel drops mounts on a path unlinked
from another namespace), so placeholders are counted per process and removed only by the last
user. Two Echo Desk processes (the app and the CLI) do not share the count: see docs/sandbox.md.

Echo Desk makes each placeholder itself, just before the first command using it, and holds it
open (``O_PATH``) until the last one ended: a command may rename a folder above it (``mv ~/.config
~/.cfg2``, the home folder as the workspace), and the descriptor says where it went, so it is
removed there rather than left behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

_lock = threading.Lock()
_users: dict[Path, int] = {}
#: An ``O_PATH`` descriptor of each placeholder made here: it follows the placeholder through a rename.
_held: dict[Path, int] = {}


@dataclass(frozen=True)
class Placeholder:
    path: Path
    folder: bool

    def bwrap_args(self) -> list[str]:
        if self.folder:
            return ["--tmpfs", str(self.path), "--remount-ro", str(self.path)]
        return ["--ro-bind", "/dev/null", str(self.path)]


def missing(candidates: list[tuple[Path, bool]], workspaces: list[Path]) -> list[Placeholder]:
    """The candidates (``(path, is_folder)``) that do not exist, whose parent folder does and is
    inside a workspace (a path under a missing or symlinked parent is left out: making it would
    create more than one entry, or one outside). Already-counted placeholders are included."""
    found: list[Placeholder] = []
    for path, folder in candidates:
        parent = path.parent
        try:
            if os.path.lexists(path) and path not in _users:
                continue
            if os.path.islink(parent) or not parent.is_dir():
                continue
        except OSError:
            continue
        real_parent = Path(os.path.realpath(parent))
        if not any(real_parent == w or real_parent.is_relative_to(w) for w in workspaces):
            continue
        found.append(Placeholder(real_parent / path.name, folder))
    return found


def in_use() -> dict[Path, int]:
    """The placeholders counted now, with how many commands use each (for tests and logs)."""
    with _lock:
        return dict(_users)


def take(placeholders: list[Placeholder]) -> None:
    """Count these placeholders as used by one more command (call before it starts); the first
    user makes each (bwrap would otherwise) and holds it open."""
    with _lock:
        for p in placeholders:
            if p.path not in _users:
                held = _make(p)
                if held is not None:
                    _held[p.path] = held
            _users[p.path] = _users.get(p.path, 0) + 1


def _make(p: Placeholder) -> int | None:
    """Create ``p`` (empty; never through a link) and open it; ``None`` where that failed (bwrap
    then makes it, and it is looked for at its own path only: a parent removed since it was
    looked at, a folder not writable here)."""
    with contextlib.suppress(OSError):  # (FileExistsError too: then what is there is opened, never followed)
        if p.folder:
            os.mkdir(p.path, 0o755)
        else:
            os.close(os.open(p.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))
    try:
        return os.open(p.path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None


def release(placeholders: tuple[Placeholder, ...] | list[Placeholder]) -> None:
    """One command using these ended: the last one removes each placeholder still empty, where it
    is now."""
    with _lock:
        for p in placeholders:
            left = _users.get(p.path, 0) - 1
            if left > 0:
                _users[p.path] = left
                continue
            _users.pop(p.path, None)
            held = _held.pop(p.path, None)
            if held is None:
                _remove_if_empty(p, p.path)
                continue
            try:
                where = _where(held)
                if where is not None:
                    _remove_if_empty(p, where, held)
            finally:
                os.close(held)


def remove_left(placeholders: tuple[Placeholder, ...] | list[Placeholder]) -> None:
    """Placeholders an earlier Echo Desk process made and could not remove (it was killed): each
    still empty that no command of this process uses is removed (at its own path: the descriptor
    that followed it through a rename died with that process)."""
    with _lock:
        for p in placeholders:
            if p.path not in _users:
                _remove_if_empty(p, p.path)


def _where(held: int) -> Path | None:
    """Where the placeholder held open is now (``None``: removed, or out of this process's view)."""
    try:
        path = os.readlink(f"/proc/self/fd/{held}")
    except OSError:
        return None
    return Path(path) if path.startswith("/") and not path.endswith(" (deleted)") else None


def _remove_if_empty(p: Placeholder, where: Path, held: int | None = None) -> None:
    with contextlib.suppress(OSError):
        st = os.lstat(where)
        if held is not None:
            ours = os.fstat(held)
            if (st.st_dev, st.st_ino) != (ours.st_dev, ours.st_ino):
                return  # something else took that name since: not ours to remove
        if p.folder and stat.S_ISDIR(st.st_mode):
            os.rmdir(where)  # fails (and keeps it) when something was put inside
        elif not p.folder and stat.S_ISREG(st.st_mode) and st.st_size == 0:
            os.unlink(where)
