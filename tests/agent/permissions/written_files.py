"""The files a strace log shows a line wrote: opened for writing or created (``openat`` with
``O_WRONLY``, ``O_RDWR``, ``O_CREAT`` or ``O_TRUNC``, ``creat``), renamed (both names), deleted,
made as a folder or a link, or truncated — only calls that succeeded. The log is written with
``-y``, so each descriptor shows its file and ``AT_FDCWD`` the folder the process was in: a
relative path resolves where that process really was, and a file opened through a link is the
file the link leads to."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: The calls that write a name or a file's content (x86_64: ``open`` is ``openat`` there).
WRITE_CALLS = ("open", "openat", "creat", "truncate", "rename", "renameat", "renameat2", "unlink", "unlinkat",
               "mkdir", "mkdirat", "symlink", "symlinkat", "link", "linkat", "mknod", "mknodat")
#: The calls that make a process (the new one starts in its parent's folder) or change its folder:
#: a call that names no descriptor (``mkdir("p")``) resolves in the folder they leave.
FOLDER_CALLS = ("clone", "clone3", "fork", "vfork", "chdir", "fchdir")
_MAKE_PROCESS = ("clone", "clone3", "fork", "vfork")
_WRITING_FLAGS = re.compile(r"\bO_(?:WRONLY|RDWR|CREAT|TRUNC)\b")
#: ``PID name(args) = result``; a call another process interrupted comes in two lines.
_CALL = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+= (\S+)(.*)$")
_UNFINISHED = re.compile(r"^(\d+)\s+(.*) <unfinished \.\.\.>$")
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. \w+ resumed>(.*)$")
#: An argument: a quoted string (a path) or a descriptor with its file (``3</a/b>``, ``AT_FDCWD</a>``).
_ARGUMENT = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(\w+)<([^>]*)>|[^,]+)')
#: Where writing stores nothing: the null device, the terminal, the process's own descriptors.
_SINKS = re.compile(r"^(?:/dev/(?:null|tty|stdout|stderr|fd/\d+)|/proc/self/fd/\d+|/proc/\d+/fd/\d+|pipe:.*|socket:.*)$")


@dataclass(frozen=True)
class Call:
    """One call of the log: its arguments are strings (``path``), descriptors with their file
    (``file``; ``cwd`` for ``AT_FDCWD``, the folder the process is in) or anything else (``raw``:
    flags, numbers)."""

    pid: str
    name: str
    arguments: list[tuple[str, str]]
    result: str


def whole_calls(log: str) -> list[Call]:
    """Each call of ``log``, a call strace split in two joined again."""
    pending: dict[str, str] = {}
    calls = []
    for line in log.splitlines():
        if m := _UNFINISHED.match(line):
            pending[m.group(1)] = m.group(2)
            continue
        if (m := _RESUMED.match(line)) and m.group(1) in pending:
            line = f"{m.group(1)} {pending.pop(m.group(1))}{m.group(2)}"
        if m := _CALL.match(line):
            pid, name, args, result, rest = m.groups()
            calls.append(Call(pid, name, _arguments(args), result + rest))
    return calls


def _arguments(text: str) -> list[tuple[str, str]]:
    found = []
    for m in _ARGUMENT.finditer(text):
        if m.group(1) is not None:
            found.append(("path", _unescaped(m.group(1))))
        elif m.group(3) is not None:
            found.append(("cwd" if m.group(2) == "AT_FDCWD" else "file", _unescaped(m.group(3))))
        elif m.group(0).strip():
            found.append(("raw", m.group(0).strip()))
    return found


def _unescaped(text: str) -> str:
    """A path as strace prints it (bytes past ASCII as octal escapes) as Python names files."""
    raw = text.encode("ascii", "backslashreplace").decode("unicode_escape").encode("latin-1", "replace")
    return raw.decode("utf-8", "surrogateescape")


def files_written(log: str, start: Path, known: Iterable[str] = ()) -> list[str]:
    """Every file ``log`` shows written, as an absolute path, in order. A path is taken in the
    folder of the descriptor before it (``AT_FDCWD</ws>``); in a call that names none (``mkdir``,
    ``unlink``), in the folder that process is in: the last one it showed, else the one its
    ``chdir``/``fchdir`` went to, else its parent's when it was made (``clone``, ``fork``), else
    ``start`` for the first process.

    ``known``: files there before the line ran (absolute, links resolved). A rename shows only the
    two names, yet a folder renamed moves every file below it: each known file below the old name
    (or made below it by the line) counts as written at its old and its new place."""
    calls = whole_calls(log)
    files = _Files(known)
    parent_of = {call.result: call.pid for call in calls if call.name in _MAKE_PROCESS and call.result.isdigit()}
    folder_of: dict[str, str] = {}

    def folder(pid: str) -> str:
        if pid not in folder_of:
            # A process's first call comes after its parent's clone began (its result may come
            # later, strace prints it when the parent runs again): the parent is still where it
            # was when it made this one.
            parent = parent_of.get(pid)
            folder_of[pid] = folder(parent) if parent is not None and parent != pid else str(start)
        return folder_of[pid]

    written: list[str] = []
    for call in calls:
        if call.name not in WRITE_CALLS and call.name not in ("chdir", "fchdir"):
            continue
        here = folder(call.pid)
        if call.arguments and call.arguments[0][0] == "cwd":
            folder_of[call.pid] = here = call.arguments[0][1]
        if not call.result[:1].isdigit():
            continue  # failed: -1 and the error's name
        if call.name in ("chdir", "fchdir"):
            folder_of[call.pid] = _folder_entered(call, here)
            continue
        paths = [os.path.normpath(path) for path in _names_written(call, here)]
        written.extend(paths)
        written.extend(files.changed(call.name, paths))
    return written


class _Files:
    """The files a line's calls have left, as far as the log and the files there before tell:
    enough to see which files a folder's rename moved (strace names only the folder)."""

    def __init__(self, known: Iterable[str]) -> None:
        self.paths = {_real(path) for path in known}

    def changed(self, call: str, paths: list[str]) -> list[str]:
        """Record what ``call`` did to ``paths``; the files below a renamed folder, at their old
        and their new place."""
        real = [_real(path) for path in paths]
        if call.startswith("rename") and len(real) == 2:
            old, new = real
            moved = sorted(p for p in self.paths if p.startswith(old + os.sep))
            self.paths.difference_update(moved)
            self.paths.discard(old)
            landed = [new + p[len(old):] for p in moved]
            self.paths.update([new, *landed])
            return [path for pair in zip(moved, landed, strict=True) for path in pair]
        if call.startswith("unlink"):
            self.paths.difference_update(real)
        elif not call.startswith("mkdir"):
            self.paths.update(real)
        return []


def _real(path: str) -> str:
    """``path`` with the links of its folder resolved (as they are now), its last name kept."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _folder_entered(call: Call, cwd: str) -> str:
    """The folder a successful ``chdir``/``fchdir`` entered: the descriptor's file, or the path
    joined to ``cwd`` with its links resolved as the kernel does (where they still exist)."""
    for kind, value in call.arguments:
        if kind == "file":
            return value
        if kind == "path":
            return os.path.realpath(os.path.join(cwd, value))
    return cwd


def _names_written(call: Call, cwd: str) -> list[str]:
    """The paths a successful call wrote, each joined to the folder of the descriptor before it."""
    paths: list[str] = []
    folder = cwd
    for kind, value in call.arguments:
        if kind in ("cwd", "file"):
            folder = value
        elif kind == "path":
            paths.append(os.path.join(folder, value))
            folder = cwd
    if call.name in ("open", "openat", "creat"):
        flags = " ".join(value for kind, value in call.arguments if kind == "raw")
        if call.name != "creat" and not _WRITING_FLAGS.search(flags):
            return []
        opened = re.match(r"\d+<(.*)>$", call.result)
        return [_unescaped(opened.group(1))] if opened else paths[:1]
    if call.name in ("symlink", "symlinkat", "link", "linkat"):
        return paths[1:2]  # the new name; the first is what it leads to
    if call.name.startswith("rename"):
        return paths[:2]
    return paths[:1]


def not_allowed(written: list[str], writable: Path) -> list[str]:
    """What of ``written`` lies outside ``writable`` (the folder the write rules allow, its links
    resolved), places where writing stores nothing aside."""
    top = os.path.realpath(writable)
    outside = []
    for path in written:
        if _SINKS.match(path):
            continue
        real = _real(path)
        if real != top and not real.startswith(top + os.sep):
            outside.append(path)
    return outside
