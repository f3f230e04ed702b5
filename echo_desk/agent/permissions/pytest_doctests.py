"""Which files pytest runs as doctests in the folders it collects, besides the ones named on
its line: those whose names match its ``--doctest-glob`` globs, ``test*.txt`` when none is
given (pytest 8-9, ``doctest._is_doctest``; the glob is matched on the name, case and all).
So ``notes.txt`` is no code of a plain ``pytest``; ``test_notes.txt`` is (proven: its
``>>> import os; os.system(…)`` ran under ``pytest tests``, s207).

The globs may come from beyond the line: ``PYTEST_ADDOPTS`` (in the environment the command
runs with) and the ``addopts`` of pytest's settings files. Read from the settings files in the
folders it collects and every folder above them (pytest takes the first it finds; every one
counts here), and from the folders it runs in: a ``--doctest-glob`` there adds its glob; any
``PYTEST_ADDOPTS``, a settings file not understood, or ``addopts`` that may change pytest's
settings some other way (``-o``, ``-c``, a glob written otherwise) give ``None``: any file."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.pytest_testpaths import READ_ERRORS, SETTINGS_FILES, settings_in

#: pytest's doctest files when no ``--doctest-glob`` is given.
DEFAULT_GLOBS = ("test*.txt",)
_OPTION = "--doctest-glob"
#: Options in ``addopts`` that change which settings pytest reads (``-o doctest_…``, ``-c FILE``).
_SETTINGS_OPTIONS = ("-o", "--override-ini", "-c", "--config-file", "--rootdir")


def doctest_globs(folders: Iterable[Path]) -> tuple[str, ...] | None:
    """The globs of pytest's doctest files in ``folders`` (the ones it collects and runs in),
    or ``None`` when they are not known."""
    if line_environment.get("PYTEST_ADDOPTS").strip():
        return None
    globs: list[str] = []
    for path, section in _settings_files(folders):
        try:
            found = settings_in(path, section)
        except READ_ERRORS:
            return None
        added = _globs_added(found.get("addopts") if found else None)
        if added is None:
            return None
        globs += added
    return tuple(dict.fromkeys(globs)) or DEFAULT_GLOBS


def _settings_files(folders: Iterable[Path]) -> list[tuple[Path, str | None]]:
    above = dict.fromkeys(f for folder in folders for f in (folder, *folder.parents))
    return [(f / name, section) for f in above for name, section in SETTINGS_FILES if (f / name).is_file()]


def _globs_added(addopts: object) -> list[str] | None:
    """The ``--doctest-glob`` values of ``addopts`` (``None``: not read)."""
    if addopts is None:
        return []
    if isinstance(addopts, str):
        try:
            words = shlex.split(addopts)
        except ValueError:
            return None
    elif isinstance(addopts, list) and all(isinstance(w, str) for w in addopts):
        words = list(addopts)
    else:
        return None
    globs: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == _OPTION and at + 1 < len(words):
            globs.append(words[at + 1])
            at += 2
            continue
        if word.startswith(f"{_OPTION}="):
            globs.append(word[len(_OPTION) + 1:])
        elif "doctest-glob" in word or _changes_settings(word):
            return None
        at += 1
    return globs


def _changes_settings(word: str) -> bool:
    if word.startswith("--"):
        return word.split("=", 1)[0] in _SETTINGS_OPTIONS
    # (short options may be grouped: `-qo x`, `-qc f`)
    return word.startswith("-") and any(c in word[1:] for c in "oc")
