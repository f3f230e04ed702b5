"""Where the shell looks for a program named without a ``/`` (``ls``, ``git``, ``python3``): in
each folder of ``PATH`` in turn, running the first file of that name it finds (s319). A rule
``ls **`` trusts the program ``ls`` the person has, not whatever file of that name comes first:
with a folder the write rules let the agent write searched before the real one (``~/.local/bin``
or ``~/bin`` first on ``PATH``, as many systems set it), the agent plants ``ls`` there and the
next ``ls`` the rule allows runs it — within one line too:
``printf '#!/bin/sh\\ntouch PWNED' > ~/.local/bin/ls && chmod +x ~/.local/bin/ls && ls``
(proven with bash 5.2 and dash 0.5.12, strace: ``execve("~/.local/bin/ls")``).

So the files that may be run are those of every folder searched up to and including the one
where the program is found now (every folder when it is not found): one the agent may write
makes the line ask. The ``PATH`` is the one the command gets (``line_environment``: Echo Desk's
own, which keeps only absolute folders, with what the line gives on top). A relative or empty
entry is the folder the command runs in; bash also reads a leading ``~`` of an entry as the home
folder (dash does not: both readings count). Builtins both shells have run no file.

A program's children look programs up on the same ``PATH`` (s321): ``make`` runs ``cc`` and
``sh``, git runs ``ssh`` and its hooks' programs, ``npm test`` runs ``node``, a script starting
``#!/usr/bin/env python3`` runs the first ``python3``. With ``~/.local/bin`` writable and on
``PATH``, ``make`` with a Makefile calling ``cc`` ran a planted ``~/.local/bin/cc`` and
``./t.py`` a planted ``~/.local/bin/python3`` (bash 5.2, dash 0.5.12, strace). Which names a
child looks up no rule says, and a name may exist nowhere else: so any file in any folder of
``PATH`` may be run by a command that is not a builtin (``path_folders``), whatever its word."""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.shell import SHELL_BUILTINS

#: dash's builtins (``dash`` 0.5.12's manual): a name both shells run as a builtin is never looked
#: up on ``PATH``; one only bash has (``shopt``) is a file under dash.
_DASH_BUILTINS = frozenset("""
    . : [ alias bg break cd chdir command continue echo eval exec exit export false fc fg getopts hash jobs
    kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait
""".split())
_BUILTINS = SHELL_BUILTINS & _DASH_BUILTINS


def candidates(word: str | None, cwds: Sequence[Path], home: Path | None,
               real_folders: dict[str, str] | None = None) -> list[Path] | None:
    """The files the shell may run for the program word ``word`` run from any of ``cwds``: for a
    name found on ``PATH``, that name in each folder searched up to where it is found (both the
    folder as written and where its links lead); ``[]`` for a path, a builtin or no word;
    ``None`` when a folder searched is only known when the line runs (a ``~`` entry, the home
    folder not known). ``real_folders``: the real places of folders already worked out in this
    verdict (``os.path.realpath`` of every file looked up, stat by stat, was most of a
    verdict's time), shared with ``path_folders``."""
    if not word or "/" in word or word in _BUILTINS:
        return []
    real_folders = {} if real_folders is None else real_folders
    found: list[str] = []
    for entry, folders in _path_entries(line_environment.get("PATH"), tuple(cwds), home):
        if folders is None:
            return None
        runnable = False
        for folder in folders:
            file = os.path.join(folder, word)  # (the string of ``Path(folder) / word``: no ``/`` in word)
            link, runs = _looked_at(file)
            runnable |= runs
            # As written, and where it leads: the link followed when it is one, else the file
            # in its folder's real place.
            found += [os.path.normpath(file), os.path.realpath(file) if link
                      else os.path.join(_real_folder(os.path.normpath(folder), real_folders), word)]
        if os.path.isabs(entry) and not entry.startswith("~") and runnable:
            break  # (a relative entry's file differs with the folder the line runs in: search on)
    # (a Path made once for each string: most are the same file as written and real)
    return list(dict.fromkeys(Path(f) for f in dict.fromkeys(found)))


def looked_up(word: str | None) -> bool:
    """Whether running the program word ``word`` looks anything up on ``PATH`` (not a builtin of
    both shells, not nothing): ``path_folders`` is ``[]`` otherwise, and the same for any such word."""
    return bool(word) and word not in _BUILTINS


def path_folders(word: str | None, cwds: Sequence[Path], home: Path | None,
                 real_folders: dict[str, str] | None = None) -> list[Path] | None:
    """The folders of ``PATH`` in which any file may be run by the command whose program word is
    ``word``, its children's lookups included (s321): every folder of ``PATH`` (as written and
    where its links lead), ``[]`` for a builtin both shells have or no word, ``None`` when a
    folder is only known when the line runs. ``real_folders``: as for ``candidates``."""
    if not looked_up(word):
        return []
    real_folders = {} if real_folders is None else real_folders
    found: list[str] = []
    for _, folders in _path_entries(line_environment.get("PATH"), tuple(cwds), home):
        if folders is None:
            return None
        found += [p for f in folders for p in (os.path.normpath(f), _real_folder(f, real_folders))]
    return list(dict.fromkeys(Path(f) for f in dict.fromkeys(found)))


@functools.lru_cache(maxsize=64)
def _path_entries(path: str, cwds: tuple[Path, ...], home: Path | None) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    """Each entry of the ``PATH`` value ``path`` with the folders it names (``_entry_folders``).
    Worked out from the words alone, without looking at the disk, so kept: every command of
    every verdict looks up the same ``PATH``."""
    return tuple((entry, _entry_folders(entry, cwds, home)) for entry in path.split(os.pathsep))


def _entry_folders(entry: str, cwds: tuple[Path, ...], home: Path | None) -> tuple[str, ...] | None:
    """The folders one ``PATH`` entry names, each as the string of its ``Path`` (``None``: not
    known here)."""
    if os.path.isabs(entry):
        return (str(Path(entry)),)
    readings = [entry or "."]
    if entry == "~" or entry.startswith("~/"):
        if home is None:
            return None
        readings.append(str(home) + entry[1:])
    return tuple(str(Path(r) if os.path.isabs(r) else c / r)
                 for r in readings for c in ([Path("/")] if os.path.isabs(r) else cwds))


def _real_folder(folder: str, real_folders: dict[str, str]) -> str:
    """``os.path.realpath(folder)``, once a verdict."""
    real = real_folders.get(folder)
    if real is None:
        real = real_folders[folder] = os.path.realpath(folder)
    return real


def _looked_at(file: str) -> tuple[bool, bool]:
    """Whether ``file`` is a symbolic link, and whether the shell runs it (a file it may run):
    one ``lstat`` for a file that is not a link (most of those looked up are not there)."""
    try:
        status = os.lstat(file)
    except (OSError, ValueError):  # (not there, a name too long: not run from here)
        return False, False
    if stat.S_ISLNK(status.st_mode):
        try:
            status = os.stat(file)
        except OSError:  # (a dangling link, a loop)
            return True, False
        return True, stat.S_ISREG(status.st_mode) and os.access(file, os.X_OK)
    return False, stat.S_ISREG(status.st_mode) and os.access(file, os.X_OK)


def searches_the_working_folder() -> bool:
    """Whether ``PATH`` has an entry that is not an absolute folder (the folder the command runs
    in, or one below it)."""
    return any(not os.path.isabs(entry) for entry in line_environment.get("PATH").split(os.pathsep))
