"""Workspace confinement and race-safe file access for the built-in tools.

A path argument is resolved once (symlinks followed, ``..`` collapsed, ``~`` left alone) and
checked against the scope's roots. The actual open then walks from the root folder one
component at a time with ``O_NOFOLLOW`` on directory file descriptors, so a folder swapped
for a symlink between the check and the use makes the call fail instead of escaping.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from echo_desk.i18n import N_, deferred, for_person, quoted_later
from echo_desk.tools import ErrorKind, ToolError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_PATH_CHARS = 4096
_FILE_PATH = "File path, relative to the workspace or absolute inside it."


def path_argument(description: str) -> object:
    """The ``Field`` of a path argument (its limits are the file tools' own). Mark it ``READS`` or
    ``WRITES`` beside it (``Annotated[str, path_argument(...), WRITES]``) so the read or write
    rules judge it; unmarked, only the tool's own family does (a shell's working folder)."""
    # pydantic only for the tools' argument models: the engine's undo and read-first checks use
    # these primitives without it (and the window's first frame does not wait for it).
    from pydantic import Field

    return Field(min_length=1, max_length=MAX_PATH_CHARS, description=description)


if TYPE_CHECKING:
    #: A file path argument, as the file tools take it.
    FilePath = Annotated[str, path_argument(_FILE_PATH)]


def __getattr__(name: str) -> object:
    """``FilePath``, made (with pydantic) when an argument model first names it."""
    if name == "FilePath":
        made = Annotated[str, path_argument(_FILE_PATH)]
        globals()[name] = made
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Resolved:
    """An absolute, symlink-free path known to lie inside ``root``."""

    path: Path
    root: Path

    @property
    def parts(self) -> tuple[str, ...]:
        """Components below the root (empty for the root itself)."""
        return self.path.relative_to(self.root).parts

    def __str__(self) -> str:
        return str(self.path)


def _real_roots(roots: Sequence[Path]) -> list[Path]:
    return [Path(os.path.realpath(r)) for r in roots]


def _inside(raw: str, root: Path) -> str:
    """A relative path that repeats the workspace's own path, as the path inside it.

    The small built-in model copies the workspace's path from the system prompt into a relative
    path ("tmp/ws/notes.txt" or "ws/notes.txt" for the workspace /tmp/ws; its grammar refuses
    absolute paths). That means "notes.txt", unless the workspace has a "tmp" (or "ws") of its
    own: then the path is taken as written. The result is confined like any other path.
    """
    parts = Path(raw).parts
    for repeated in (root.parts[1:], root.parts[-1:]):
        if repeated and parts[: len(repeated)] == repeated and not os.path.lexists(root / repeated[0]):
            return os.path.join(".", *parts[len(repeated):])
    return raw


def resolve(raw: object, roots: Sequence[Path], *, what: str = "path") -> Resolved:
    """Resolve a model-supplied path inside one of ``roots`` or raise a ``ToolError``.

    Relative paths are anchored at the first root. ``~`` is an ordinary folder name here:
    expanding it would let a model reach the home folder without naming it.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError(for_person(f"{what} must be a non-empty string", N_("The agent gave no path.")),
                        kind=ErrorKind.VALIDATION)
    if "\x00" in raw:
        raise ToolError(for_person(f"{what} contains a NUL byte", N_("The agent's path contains a NUL byte.")),
                        kind=ErrorKind.VALIDATION)
    if len(raw) > MAX_PATH_CHARS:
        raise ToolError(for_person(f"{what} is longer than {MAX_PATH_CHARS} characters",
                                   N_("The agent's path is longer than {limit} characters."), limit=MAX_PATH_CHARS),
                        kind=ErrorKind.VALIDATION)
    real_roots = _real_roots(roots)
    if not real_roots:
        raise ToolError(for_person("this scope has no workspace folder for that",
                                   N_("This conversation has no workspace folder for that.")),
                        kind=ErrorKind.BUSINESS)
    joined = raw if os.path.isabs(raw) else os.path.join(real_roots[0], _inside(raw, real_roots[0]))
    try:
        real = Path(os.path.realpath(joined))
    except (OSError, ValueError) as exc:
        raise ToolError(for_person(f"{what} {raw!r} cannot be resolved: {exc}",
                                   N_("The path {path} cannot be resolved: {error}"),
                                   path=quoted_later(raw), error=str(exc)), kind=ErrorKind.BUSINESS) from exc
    for root in real_roots:
        if real == root or real.is_relative_to(root):
            return Resolved(real, root)
    allowed = ", ".join(str(r) for r in real_roots)
    raise ToolError(for_person(
        f"{what} {raw!r} resolves to {real}, which is outside the workspace ({allowed})",
        N_("{path} is outside the workspace ({folders})."),
        path=str(real), folders=tuple(str(r) for r in real_roots)), kind=ErrorKind.BUSINESS)


def os_error(exc: OSError, target: object, action: str) -> ToolError:
    """A clear business/internal error for a failed file operation."""
    code = exc.errno
    if code == errno.ELOOP:
        why = N_("a folder on the way is now a symbolic link (it was replaced while the tool ran)")
    elif code == errno.ENOTDIR:
        why = N_("a part of the path is not a folder, or was replaced by a symbolic link while the tool ran")
    elif code == errno.ENOENT:
        why = N_("it does not exist")
    elif code in (errno.EACCES, errno.EPERM):
        why = N_("permission denied")
    elif code == errno.ENOSPC:
        why = N_("the disk is full")
    elif code == errno.EDQUOT:
        why = N_("the disk quota is exhausted")
    elif code == errno.ENAMETOOLONG:
        why = N_("the name is too long")
    elif code == errno.EISDIR:
        why = N_("it is a folder")
    else:
        why = exc.strerror or str(exc)
    kind = ErrorKind.INTERNAL if code == errno.EIO else ErrorKind.BUSINESS
    shown = _ACTION_SHOWN.get(action, N_("Echo Desk could not finish this with {path}: {why}."))
    # ``why`` is the English of its msgid: the person reads it in their language (a system's own
    # words, the last case, stay as they are).
    return ToolError(for_person(f"could not {action} {target}: {why}", shown, path=str(target),
                                why=deferred(why) if code in _WHY_TRANSLATED else why), kind=kind)


_WHY_TRANSLATED = frozenset({errno.ELOOP, errno.ENOTDIR, errno.ENOENT, errno.EACCES, errno.EPERM, errno.ENOSPC,
                             errno.EDQUOT, errno.ENAMETOOLONG, errno.EISDIR})
#: What the person reads of ``os_error`` for each action a caller names.
_ACTION_SHOWN = {
    "read": N_("Could not read {path}: {why}."),
    "open": N_("Could not open {path}: {why}."),
    "open the folder of": N_("Could not open the folder of {path}: {why}."),
    "write": N_("Could not write {path}: {why}."),
    "search": N_("Could not search {path}: {why}."),
    "enter": N_("Could not enter the folder {path}: {why}."),
    "put back": N_("Could not put {path} back: {why}."),
    "move": N_("Could not move {path}: {why}."),
    "copy the folder to": N_("Could not copy the folder to {path}: {why}."),
    "move to the trash": N_("Could not move {path} to the trash: {why}."),
    "create": N_("Could not create {path}: {why}."),
    "list": N_("Could not list {path}: {why}."),
}


def open_dir(root: Path, parts: Sequence[str], *, create: bool = False) -> int:
    """Open the folder ``root/parts`` without following any symlink below ``root``.

    With ``create`` missing folders are made on the way (mode 0777 minus umask).
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            try:
                nfd = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def require_dir(target: Resolved) -> None:
    """A clear error when a folder argument names a file or nothing."""
    if not os.path.isdir(target.path):
        what = "does not exist" if not os.path.lexists(target.path) else "is not a folder"
        raise not_a_file(target, what, want="folder")


#: At most this many names in an error's list of what a folder holds.
LISTED_NAMES = 12


def folder_names(folder: Path, root: Path) -> list[str]:
    """What ``folder`` holds, relative to ``root``, a folder with a trailing "/" (at most
    ``LISTED_NAMES``, then "… and N more"); empty when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return []
    names = [os.path.relpath(os.path.join(folder, e.name), root) + ("/" if e.is_dir(follow_symlinks=False) else "")
             for e in entries[:LISTED_NAMES]]
    if len(entries) > LISTED_NAMES:
        names.append(f"… and {len(entries) - LISTED_NAMES} more")
    return names


def _nearest_folder(target: Resolved) -> Path:
    folder = target.path if os.path.isdir(target.path) else target.path.parent
    while folder != target.root and not os.path.isdir(folder):
        folder = folder.parent
    return folder


def not_a_file(target: Resolved, why: str, *, want: str = "file") -> ToolError:
    """A path argument that names the wrong kind of thing, or nothing: the error says what is
    there instead.

    The small built-in model often sends the workspace's own absolute path (or a made-up name)
    as the file; with "It holds: notes.txt, docs/. Give a path relative to the workspace, like
    "notes.txt"." its next call names the right file. Names only, of a folder inside the
    workspace (the target is already confined). ``want`` is "file" or "folder".
    """
    folder = _nearest_folder(target)
    names = folder_names(folder, target.root)
    if not names:
        return ToolError(_for_person(f"{target} {why}. {folder} is empty.", target, why), kind=ErrorKind.BUSINESS)
    where = "It holds" if folder == target.path else f"{folder} holds"
    if want == "folder" and os.path.isfile(target.path):
        hint = " It is a file: read it with read_file."
    elif want == "folder":
        hint = ' Give a folder relative to the workspace, or "." for the workspace itself.'
    else:
        files = [n for n in names if not n.endswith("/") and not n.startswith("…")]
        hint = f' Give a path relative to the workspace, like "{files[0]}".' if files else ""
        if not os.path.lexists(target.path):  # a guessed name: searching finds the real one
            hint += " search_files finds a file by its name or its text."
    return ToolError(_for_person(f"{target} {why}. {where}: {', '.join(names)}.{hint}", target, why),
                     kind=ErrorKind.BUSINESS)


#: What the person reads of ``not_a_file``'s common errors (the hints are for the model).
_WHY_SHOWN = {"does not exist": N_("{path} does not exist"), "is not a folder": N_("{path} is not a folder"),
              "does not exist (write_file creates a new file)": N_("{path} does not exist"),
              "is a folder, not a file": N_("{path} is a folder, not a file"),
              "is the workspace folder, not a file": N_("{path} is the workspace folder, not a file")}


def _for_person(model_text: str, target: Resolved, why: str) -> str:
    msgid = _WHY_SHOWN.get(why)
    return for_person(model_text, msgid, path=str(target)) if msgid is not None else model_text


def open_parent(target: Resolved, *, create: bool = False) -> tuple[int, str]:
    """The folder fd holding ``target`` and the final name. ``target`` must not be a root."""
    parts = target.parts
    if not parts:
        raise not_a_file(target, "is the workspace folder, not a file")
    return open_dir(target.root, parts[:-1], create=create), parts[-1]


def lstat_in(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_regular(dir_fd: int, name: str, *, limit: int) -> tuple[bytes, os.stat_result]:
    """Read a regular file (no symlink, no FIFO) up to ``limit`` bytes plus one."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(for_person(f"{name} is not a regular file", N_("{path} is not a regular file."),
                                       path=name), kind=ErrorKind.BUSINESS)
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_file_bytes(target: Resolved, *, limit: int) -> tuple[bytes, os.stat_result]:
    """Read ``target`` through the symlink-free walk. Raises ``ToolError`` on any problem."""
    if os.path.isdir(target.path):  # only for the message: the read below stays the safe one
        raise not_a_file(target, "is a folder, not a file" if target.parts else "is the workspace folder, not a file")
    try:
        dir_fd, name = open_parent(target)
        try:
            return read_regular(dir_fd, name, limit=limit)
        finally:
            os.close(dir_fd)
    except FileNotFoundError as exc:
        raise not_a_file(target, "does not exist") from exc
    except OSError as exc:
        raise os_error(exc, target, "read") from exc


def read_existing(target: Resolved, *, limit: int) -> bytes | None:
    """Current content of a file about to be written; ``None`` when it does not exist yet."""
    try:
        dir_fd, name = open_parent(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error(exc, target, "open the folder of") from exc
    try:
        st = lstat_in(dir_fd, name)
        if st is None:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise ToolError(for_person(f"{target} became a symbolic link; nothing was written",
                                       N_("{path} became a symbolic link; nothing was written."), path=str(target)),
                            kind=ErrorKind.BUSINESS)
        if stat.S_ISDIR(st.st_mode):
            raise not_a_file(target, "is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(for_person(f"{target} is not a regular file", N_("{path} is not a regular file."),
                                       path=str(target)), kind=ErrorKind.BUSINESS)
        if st.st_size > limit:
            raise ToolError(for_person(
                f"{target} is {st.st_size} bytes; the file tools change files up to {limit} bytes",
                N_("{path} is {size} bytes; the limit is {limit} bytes."), path=str(target), size=st.st_size,
                limit=limit), kind=ErrorKind.BUSINESS)
        data, _ = read_regular(dir_fd, name, limit=limit)
        return data
    except OSError as exc:
        raise os_error(exc, target, "read") from exc
    finally:
        os.close(dir_fd)
