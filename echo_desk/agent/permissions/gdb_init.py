"""The files gdb's init files name, read as gdb (13) reads them.

gdb runs its init files as commands at its start, wherever it runs (``-nx`` skips them): the
system's, the person's (``~/.gdbinit``, ``~/.config/gdb/gdbinit``, the early ones) and, when the
person's auto-load safe-path lets it, ``./.gdbinit``. A ``source FILE`` line there runs another
file (a file of commands, or a python file: pwndbg, GEF and gdb-dashboard are installed so,
``source ~/pwndbg/gdbinit.py``), found from the folder gdb runs in when relative. Where the write
rules let the agent write one of them, a rule for gdb is a rule for whatever the agent put there
(``settings_files``), as for git's ``include.path`` (``git_config``).

Every word holding a ``/`` counts as a path (the engine does not decide which commands run
files), and the file of every ``source`` line; a sourced file of commands is read in turn, a
sourced python file names its whole folder (the tools above import their own modules from
it). A file that cannot be read names every folder gdb runs in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions.git_config import ANYWHERE, Named, parsed

#: Sourced files followed this deep (gdb stops at its own limit; deeper is not read here).
_DEPTH = 10
#: The system's init files (Debian's gdb: ``--with-system-gdbinit`` and ``-dir``).
SYSTEM_FILE = Path("/etc/gdb/gdbinit")
SYSTEM_FOLDER = Path("/etc/gdb/gdbinit.d")
#: The person's init files, under the home folder and under the folder for settings.
HOME_FILES = (".gdbinit", ".gdbearlyinit")
CONFIG_FILES = ("gdb/gdbinit", "gdb/gdbearlyinit")
#: gdb's ``source`` command, as it may be spelled (an unambiguous prefix; ``so`` its alias).
_SOURCE = frozenset({"so", "sou", "sour", "sourc", "source"})
_WORD = re.compile(r"""[^\s;&|()<>`'"=,]+""")


def init_files(home: Path | None, cwds: Sequence[Path]) -> list[Path]:
    """The init files gdb reads: the system's, the person's and ``./.gdbinit`` of each of ``cwds``."""
    files = [SYSTEM_FILE, *_folder_files(SYSTEM_FOLDER)]
    folders = [] if home is None else [home / ".config"]
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        folders.append(Path(xdg))
    if home is not None:
        files += [home / name for name in HOME_FILES]
    files += [folder / name for folder in folders for name in CONFIG_FILES]
    files += [c / ".gdbinit" for c in cwds]
    return list(dict.fromkeys(files))


def _folder_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return []


def named(files: Sequence[Path], cwds: Sequence[Path], home: Path | None) -> list[Named]:
    """What the init ``files`` name (relative words read from each of ``cwds`` and from the
    folder of the file naming them)."""
    found: list[Named] = []
    for path in files:
        found += _file_names(path, cwds, home, 0)
    return list(dict.fromkeys(found))


def _file_names(path: Path, cwds: Sequence[Path], home: Path | None, depth: int) -> list[Named]:
    unknown = [Named(c, folder=True) for c in cwds]
    try:
        lines = parsed(path, _lines)
    except FileNotFoundError:
        return []  # (gdb warns of a sourced file that is not there, and goes on)
    except OSError:
        return unknown
    if lines is None or depth > _DEPTH:
        return [ANYWHERE]  # (what it names may be anywhere)
    found: list[Named] = []
    for words in lines:
        sourced = words[-1] if len(words) > 1 and words[0] in _SOURCE else None
        for word in words:
            if "/" not in word and word != sourced:
                continue
            expanded = _expanded(word, home)
            if expanded is None:
                return unknown
            for base in dict.fromkeys((*cwds, path.parent)):
                target = Path(os.path.normpath(base / expanded))
                found.append(Named(target))
                if word == sourced and target.suffix in (".py", ".scm"):
                    found.append(Named(target.parent, folder=True))
                elif word == sourced:
                    found += _file_names(target, cwds, home, depth + 1)
    return found


def _expanded(value: str, home: Path | None) -> str | None:
    """A path as gdb expands it: ``~`` the home folder (``None``: another user's, or no home)."""
    if value == "~" or value.startswith("~/"):
        return None if home is None else str(home / value[2:])
    if value.startswith("~") or "$" in value:
        return None
    return value


def _lines(text: str) -> tuple[tuple[str, ...], ...]:
    """The words of each line of a file of gdb commands."""
    return tuple(tuple(_WORD.findall(line)) for line in text.splitlines() if not line.lstrip().startswith("#"))
