"""Echo Desk's own program files, each a file of its own: no second name (hard link) elsewhere.

uv installs a package by linking each of its files to the one in uv's cache, and every other
environment made from that cache links the same files: Echo Desk installed with ``uv tool`` shares
its ``httpx`` or ``pydantic`` with a project's ``.venv`` made by ``uv sync``. A sandboxed command
may write its workspace, and the project's ``.venv`` is in it: one ``>>`` there would change Echo
Desk's own code, which runs at its next start with all of its trust. The sandbox mounts the
program read-only, but a mount covers paths, not the files under them. So before the first
sandboxed process of a start, each writable file of the program with other names is replaced by
a copy of its own (same content, mode and times): the other names keep sharing among themselves,
none leads here any more. A file Echo Desk cannot write is left alone: no sandboxed command (run as
the same person) can write it either.

Once per start: a program upgraded while Echo Desk runs is checked at its next start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

_lock = threading.Lock()
_done: set[tuple[str, ...]] = set()
_background: tuple[threading.Thread, threading.Event] | None = None


class _Stopped(Exception):
    """The walk in the background was stopped (the app closes): nothing is marked done."""


def unshare_own_program(folders: Iterable[Path] | None = None, *, stop: threading.Event | None = None) -> int:
    """Give each writable file of ``folders`` (Echo Desk's own program) that has other names a
    copy of its own; how many were copied (0 once done in this start). Raises ``OSError`` naming
    the file when one cannot be copied: a sandboxed process must not start then."""
    if folders is None:
        from echo_desk.store import paths

        folders = paths.own_program()
    key = tuple(str(folder) for folder in folders)
    with _lock:
        if key in _done:
            return 0
        copied = sum(_unshare_in(Path(folder), stop) for folder in key)
        _done.add(key)
    if copied:
        log.info("gave %d files of Echo Desk's own program a copy of their own (they had other names)", copied)
    return copied


def unshare_in_background() -> None:
    """``unshare_own_program`` on a thread of its own (at start-up, so the first sandboxed
    command does not wait for the walk; it waits for this one if it comes first)."""
    global _background
    stop = threading.Event()
    thread = threading.Thread(target=_unshare_logged, args=(stop,), name="own-files", daemon=True)
    _background = (thread, stop)
    thread.start()


def stop_background(timeout: float = 5.0) -> None:
    """End the walk ``unshare_in_background`` started (the app closes; the next start walks again)."""
    global _background
    if _background is not None:
        (thread, stop), _background = _background, None
        stop.set()
        thread.join(timeout)


def _unshare_logged(stop: threading.Event) -> None:
    try:
        unshare_own_program(stop=stop)
    except _Stopped:
        pass
    except OSError:
        log.exception("could not give every file of Echo Desk's own program a copy of its own; "
                      "sandboxed commands will not start until it can")


def _unshare_in(folder: Path, stop: threading.Event | None) -> int:
    copied = 0
    for dirpath, _folders, names in os.walk(folder):  # links to folders are not followed
        if stop is not None and stop.is_set():
            raise _Stopped
        for name in names:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and os.access(path, os.W_OK, follow_symlinks=False):
                _own_copy(path, st)
                copied += 1
    return copied


def _own_copy(path: str, st: os.stat_result) -> None:
    """Replace ``path`` by a copy of itself, in one step (``os.replace``): never missing."""
    temporary = f"{path}.{secrets.token_hex(6)}.echo-desk-copy"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as copy, open(path, "rb") as original:
            shutil.copyfileobj(original, copy, 1 << 20)
            os.fchmod(copy.fileno(), stat.S_IMODE(st.st_mode))
        # The same times: Python compares a module's modification time with its cached bytecode.
        os.utime(temporary, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
