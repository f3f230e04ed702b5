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

import os
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
    folder not known)."""
    if not word or "/" in word or word in _BUILTINS:
        return []
    real_folders = {} if real_folders is None else real_folders
    found: list[Path] = []
    for entry in line_environment.get("PATH").split(os.pathsep):
        folders = _folders(entry, cwds, home)
        if folders is None:
            return None
        files = [folder / word for folder in folders]
        found += [p for f in files for p in dict.fromkeys((Path(os.path.normpath(f)), _real(f, real_folders)))]
        if os.path.isabs(entry) and not entry.startswith("~") and any(_runnable(f) for f in files):
            break  # (a relative entry's file differs with the folder the line runs in: search on)
    return list(dict.fromkeys(found))


def looked_up(word: str | None) -> bool:
    """Whether running the program word ``word`` looks anything up on ``PATH`` (not a builtin of
    both shells, not nothing): ``path_folders`` is ``[]`` otherwise, and the same for any such word."""
    return bool(word) and word not in _BUILTINS


def path_folders(word: str | None, cwds: Sequence[Path], home: Path | None) -> list[Path] | None:
    """The folders of ``PATH`` in which any file may be run by the command whose program word is
    ``word``, its children's lookups included (s321): every folder of ``PATH`` (as written and
    where its links lead), ``[]`` for a builtin both shells have or no word, ``None`` when a
    folder is only known when the line runs."""
    if not looked_up(word):
        return []
    found: list[Path] = []
    for entry in line_environment.get("PATH").split(os.pathsep):
        folders = _folders(entry, cwds, home)
        if folders is None:
            return None
        found += [p for f in folders for p in (Path(os.path.normpath(f)), Path(os.path.realpath(f)))]
    return list(dict.fromkeys(found))


def _folders(entry: str, cwds: Sequence[Path], home: Path | None) -> list[Path] | None:
    """The folders one ``PATH`` entry names (``None``: not known here)."""
    if os.path.isabs(entry):
        return [Path(entry)]
    readings = [entry or "."]
    if entry == "~" or entry.startswith("~/"):
        if home is None:
            return None
        readings.append(str(home) + entry[1:])
    return [Path(r) if os.path.isabs(r) else c / r for r in readings for c in ([Path("/")] if os.path.isabs(r) else cwds)]


def _real(file: Path, real_folders: dict[str, str]) -> Path:
    """Where ``file`` leads: the link followed when it is one, else the file in its folder's real
    place (``real_folders``: the folders' real places already worked out in this verdict —
    ``os.path.realpath`` of every file looked up, stat by stat, was most of a verdict's time)."""
    if os.path.islink(file):
        return Path(os.path.realpath(file))
    folder = os.path.normpath(file.parent)
    if folder not in real_folders:
        real_folders[folder] = os.path.realpath(folder)
    return Path(real_folders[folder]) / file.name


def _runnable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except OSError:  # a word too long to be a file name (ENAMETOOLONG): not found here, search on
        return False


def searches_the_working_folder() -> bool:
    """Whether ``PATH`` has an entry that is not an absolute folder (the folder the command runs
    in, or one below it)."""
    return any(not os.path.isabs(entry) for entry in line_environment.get("PATH").split(os.pathsep))
