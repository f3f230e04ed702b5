"""What git's configuration files say about where code comes from, read as git reads them (no git
process: this runs for every repository of the workspace before and after every sandboxed
command): every ``core.hooksPath`` value, every file they include, and every program (or file
or folder of code) their settings name by its path (``PROGRAM_KEYS``: ``core.fsmonitor = ~/.fsmon``
runs at every ``git status``; an alias ``!~/bin/x``; ``init.templateDir``'s hooks go into every
new repository).

Included files (``include.path``, ``includeIf.<condition>.path``) are followed as git follows
them: relative to the including file, ``~/`` in the home folder, at most ten deep. Conditions are
not evaluated: every file that *could* be included, and every hooks path that *could* apply, is
reported (watching one too many costs nothing; missing one lets a hook in).
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass

#: A file read less than this after it last changed is read again next time (see repositories).
_RACY_NS = 2_000_000_000
_MAX_CACHED = 10_000
#: git's own limit on nested includes (MAX_INCLUDE_DEPTH in config.c).
MAX_INCLUDE_DEPTH = 10

#: Settings whose value is a program git runs (or a command line naming one) or a file or folder it
#: takes code from, as (section, key); every key of ``[alias]`` (``!`` runs a shell command).
PROGRAM_KEYS = frozenset({
    ("core", "fsmonitor"), ("core", "pager"), ("core", "editor"), ("core", "sshcommand"), ("core", "askpass"),
    ("core", "gitproxy"), ("core", "attributesfile"), ("sequence", "editor"), ("diff", "external"),
    ("diff", "textconv"), ("diff", "command"), ("gpg", "program"), ("credential", "helper"), ("filter", "clean"),
    ("filter", "smudge"), ("filter", "process"), ("merge", "driver"), ("mergetool", "cmd"), ("mergetool", "path"),
    ("difftool", "cmd"), ("difftool", "path"), ("init", "templatedir"), ("interactive", "difffilter"),
    ("browser", "cmd"), ("browser", "path"), ("sendemail", "smtpserver"), ("uploadpack", "packobjectshook"),
    ("pager", "*"), ("alias", "*"),
})

#: One file's relevant lines, in order: ("hookspath", value), ("include", path as written) or
#: ("program", value of a ``PROGRAM_KEYS`` setting).
_Events = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Found:
    """``hooks_paths``: every ``core.hooksPath`` value, as written (the first from the file git
    ranks highest); ``included``: every file included, absolute and normalised."""

    hooks_paths: tuple[str, ...] = ()
    included: tuple[str, ...] = ()
    #: Every absolute path a ``PROGRAM_KEYS`` setting names (``~/`` in the home folder).
    programs: tuple[str, ...] = ()
    #: Every relative path one names (``./tools/fsmon``, ``!sh scripts/x.sh``), as written: git
    #: runs the program (and a shell alias) in the top folder of the work tree, so each names a
    #: file of every repository the settings apply to (``in_work_tree``).
    relative: tuple[str, ...] = ()

    def in_work_tree(self, top: str) -> list[str]:
        """The relative paths, in the work tree whose top folder is ``top``."""
        return [os.path.normpath(f"{top}/{word}") for word in self.relative]


def read(config_files: Iterable[str], home: str) -> Found:
    """What ``config_files`` (as git ranks them: the repository's own first, then global, then
    system) and the files they include say."""
    hooks: list[str] = []
    included: list[str] = []
    programs: list[str] = []
    relative: list[str] = []
    for path in config_files:
        _expand(path, home, 0, hooks, included, programs, relative)
    return Found(tuple(dict.fromkeys(hooks)), tuple(dict.fromkeys(included)), tuple(dict.fromkeys(programs)),
                 tuple(dict.fromkeys(relative)))


def _expand(path: str, home: str, depth: int, hooks: list[str], included: list[str], programs: list[str],
            relative: list[str]) -> None:
    if depth > MAX_INCLUDE_DEPTH:
        return
    for kind, value in _events(path):
        if kind == "hookspath":
            hooks.append(value)
            continue
        if kind == "program":
            programs += named_paths(value, home)
            relative += relative_paths(value)
            continue
        target = _resolve(value, os.path.dirname(path), home)
        if target is None or target in included:
            continue
        included.append(target)
        _expand(target, home, depth + 1, hooks, included, programs, relative)


def named_paths(value: str, home: str) -> list[str]:
    """The absolute paths in a setting's value (a path, or a command line: ``!sh ~/x.sh --y``),
    ``~`` and ``$HOME`` put in; over-reading is safe (a word that names nothing protects nothing)."""
    found: list[str] = []
    for word in _words(value):
        word = word.replace("${HOME}", home).replace("$HOME", home)
        if word == "~" or word.startswith("~/"):
            word = home + word[1:]
        if word.startswith("/") and "\x00" not in word:
            found.append(os.path.normpath(word))
    return found


def relative_paths(value: str) -> list[str]:
    """The relative paths in a setting's value (``./tools/fsmon``; ``!sh scripts/x.sh``;
    ``--with=bin/x``: the part after ``=`` too), as written: every word with a ``/`` that is not
    absolute, ``~/`` or a variable's. Over-reading is safe here too; a bare name (``less``) is
    looked up on ``PATH``, not in the work tree."""
    found: list[str] = []
    for word in _words(value):
        for part in dict.fromkeys((word, word.rpartition("=")[2])):
            if "/" in part and not part.startswith(("/", "~", "$")) and "\x00" not in part:
                found.append(part)
    return found


def _words(value: str) -> list[str]:
    """The words of a value, a shell line's operators and quotes taken for spaces (``!f() { ./x; }; f``)."""
    return [w for w in re.split(r"[\s\"';|&()<>`]+", value.lstrip("!")) if w]


def _resolve(value: str, base: str, home: str) -> str | None:
    if not value or "\x00" in value:
        return None
    if value.startswith("~/"):
        return os.path.normpath(f"{home}/{value[2:]}")
    return os.path.normpath(value if value.startswith("/") else f"{base}/{value}")


_parsed: dict[str, tuple[tuple[int, int, int, int, int], _Events]] = {}


def forget() -> None:
    _parsed.clear()


def _events(path: str) -> _Events:
    """The file's ``core.hooksPath`` values and includes, in order; kept per file until it
    changes (its size, times or inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return ()
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _parsed.get(path)
    if known is not None and known[0] == stamp and time.time_ns() - st.st_ctime_ns > _RACY_NS:
        return known[1]
    data = read_regular(path, 1 << 20)
    if data is None:
        return ()
    events = _parse(data.decode("utf-8", "replace"))
    if len(_parsed) > _MAX_CACHED:
        _parsed.clear()
    _parsed[path] = (stamp, events)
    return events


def read_regular(path: str, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``path`` (links followed, as git follows them) if it is a
    regular file, else ``None``. What a command left is untrusted: opening a named pipe nobody
    writes waits forever (on Echo Desk's event loop), and a device is not opened at all."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _parse(text: str) -> _Events:
    """Sections and keys are case-insensitive; ``[section "sub"]`` and ``[section.sub]`` both
    name a subsection; quotes and backslash escapes as git reads them."""
    section = ""
    events: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            end = line.find("]")
            header = line[1:end].strip() if end > 1 else ""
            section = header.split()[0].split(".")[0].lower() if header else ""
            line = line[end + 1:].strip() if end > 0 else ""
            if not line:
                continue
        if "=" not in line:
            continue
        name, _, rest = line.partition("=")
        key = name.strip().lower()
        if section == "core" and key == "hookspath":
            events.append(("hookspath", _config_value(rest)))
        elif key == "path" and section in ("include", "includeif"):
            events.append(("include", _config_value(rest)))
        elif (section, key) in PROGRAM_KEYS or (section, "*") in PROGRAM_KEYS:
            events.append(("program", _config_value(rest)))
    return tuple(events)


def _config_value(rest: str) -> str:
    out: list[str] = []
    quoted = False
    i = 0
    text = rest.strip()
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and i + 1 < len(text):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(text[i], text[i]))
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()
