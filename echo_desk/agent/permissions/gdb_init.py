"""The files gdb's init files name, read as gdb (13) reads them.

gdb runs its init files as commands at its start, wherever it runs (``-nx`` skips them): the
system's, the person's (``~/.gdbinit``, ``~/.config/gdb/gdbinit``, the early ones) and, when the
person's auto-load safe-path lets it, ``./.gdbinit``. A ``source FILE`` line there runs another
file (a file of commands, or a python file: pwndbg, GEF and gdb-dashboard are installed so,
``source ~/pwndbg/gdbinit.py``), found from the folder gdb runs in when relative. Where the write
rules let the agent write one of them, a rule for gdb is a rule for whatever the agent put there
(``settings_files``), as for git's ``include.path`` (``git_config``).

gdb also auto-loads code that comes with each program it loads (``auto-load``, where the
person's auto-load safe-path lets it: ``set auto-load safe-path /`` or ``add-auto-load-safe-path``,
the lines gdb itself suggests): ``PROG-gdb.py``, ``PROG-gdb.gdb`` and ``PROG-gdb.scm`` beside the
program (beside the file a link leads to, too), and a script inside the program's own
``.debug_gdb_scripts`` section or inside its separate debug file (``PROG.debug``, ``.debug/``):
all four proven with gdb 13 and ``set auto-load safe-path /``, from ``gdb -batch PROG`` alone.
Echo Desk does not read the safe-path, so these count as ./.gdbinit does (``loaded``).

Every word holding a ``/`` counts as a path (the engine does not decide which commands run
files), and the file of every ``source`` line; a sourced file of commands is read in turn, a
sourced python file names its whole folder (the tools above import their own modules from
it). A file that cannot be read names every folder gdb runs in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.git_config import ANYWHERE, Named, parsed

#: Sourced files followed this deep (gdb stops at its own limit; deeper is not read here).
_DEPTH = 10
#: The system's init files (Debian's gdb: ``--with-system-gdbinit`` and ``-dir``, not
#: relocatable: a copy of gdb elsewhere reads them too). gdb runs them at every start but
#: ``-nx`` (the ``.gdb``, ``.py`` and ``.scm`` files of the folder: proven, gdb 13, s193).
SYSTEM_FILE = Path("/etc/gdb/gdbinit")
SYSTEM_FOLDER = Path("/etc/gdb/gdbinit.d")
#: gdb's data directory and separate debug folder (``--with-gdb-datadir``,
#: ``--with-separate-debug-dir``: "relocatable"), found from the folder above the folder of
#: the program file gdb runs from, its links followed (a copy in p/bin/ reads p/share/gdb).
#: gdb imports its own python package from the first at every start, ``-nx`` too (a file put
#: in ``python/gdb/command/`` ran), and auto-loads the scripts of both for every program it
#: loads whatever the person's safe-path (``$debugdir:$datadir/auto-load`` is its default:
#: ``lib/debug/usr/bin/true-gdb.py`` ran under ``gdb -nx -batch /usr/bin/true``; s193).
INSTALL_FOLDERS = ("share/gdb", "lib/debug")
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
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        folders.append(Path(xdg))
    if home is not None:
        files += [home / name for name in HOME_FILES]
    files += [folder / name for folder in folders for name in CONFIG_FILES]
    files += [c / ".gdbinit" for c in cwds]
    return list(dict.fromkeys(files))


def install_folders(runner: str | None, cwds: Sequence[Path], home: Path | None) -> list[Path]:
    """The data directory and debug folder (``INSTALL_FOLDERS``) of gdb started as ``runner``
    from any of ``cwds`` (``~/…`` under ``home``): a bare name is found in every folder of
    ``PATH`` (in the environment the commands inherit from Echo Desk; an empty one is the
    folder it runs in)."""
    name = expanded(runner or "gdb", home)
    if name is None:
        return [Path("/")]  # (a program in a home not known here: its folders may be any)
    started = [name] if "/" in name else [os.path.join(e, name) for e in line_environment.get("PATH").split(os.pathsep)]
    found = [Path("/usr") / folder for folder in INSTALL_FOLDERS]
    for program in started:
        for cwd in cwds:
            path = cwd / program
            for each in dict.fromkeys((os.path.normpath(path), os.path.realpath(path))):
                prefix = Path(os.path.dirname(os.path.dirname(each)))
                found += [prefix / folder for folder in INSTALL_FOLDERS]
    return list(dict.fromkeys(found))


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
            text = expanded(word, home)
            if text is None:
                return unknown
            for base in dict.fromkeys((*cwds, path.parent)):
                target = Path(os.path.normpath(base / text))
                found.append(Named(target))
                if word == sourced and target.suffix in (".py", ".scm"):
                    found.append(Named(target.parent, folder=True))
                elif word == sourced:
                    found += _file_names(target, cwds, home, depth + 1)
    return found


def expanded(value: str, home: Path | None) -> str | None:
    """A path as gdb expands it: ``~`` the home folder (``None``: another user's, or no home)."""
    if value == "~" or value.startswith("~/"):
        return None if home is None else str(home / value[2:])
    if value.startswith("~") or "$" in value:
        return None
    return value


def _lines(text: str) -> tuple[tuple[str, ...], ...]:
    """The words of each line of a file of gdb commands."""
    return tuple(tuple(_WORD.findall(line)) for line in text.splitlines() if not line.lstrip().startswith("#"))


#: The files gdb auto-loads beside a program it loads (``objfile-gdb.py`` and its kin).
AUTO_LOAD_SUFFIXES = ("-gdb.py", "-gdb.gdb", "-gdb.scm")
#: gdb's options naming the folder it changes to before it loads its files (``-cd``, ``--cd``).
CD_OPTIONS = ("-cd", "--cd")
#: gdb's option attaching to a running process (any unique prefix: ``-pi``), whose program and
#: libraries may be any file.
_PID = "pid"


@dataclass(frozen=True)
class Loaded:
    """The words of a gdb command line that may name a file gdb loads as a program (its
    program, core file or symbols, with every other word: the engine does not tell which
    option takes a value, and counting one more file costs nothing), and whether it may load
    files not named there (a word known only when the line runs, a process it attaches to:
    ``-p``, or a number where the core file goes)."""

    files: tuple[str, ...]
    unknown: bool


def loaded(words: Sequence[str | None]) -> Loaded:
    """What gdb (13) may load as programs, given its arguments ``words``: every word not an
    option (after ``--`` too: the program, then a core file or a process), and the value glued
    to an option (``--exec=F``, ``-se=F``, ``-core=F``); after ``--args``, the first word not
    an option only (the words after it are the program's own arguments)."""
    files: list[str] = []
    unknown = False
    options = True
    arguments = False  # (--args seen: the program's own arguments follow its name)
    for word in words:
        if word is None:
            unknown = True
        elif not options or not word.startswith("-") or word == "-":
            files.append(word)
            unknown = unknown or word.isdigit()  # (gdb attaches to that process)
            if arguments:
                break
        elif word == "--":
            options = False
        else:
            name, glued, value = word.lstrip("-").partition("=")
            unknown = unknown or (len(name) > 1 and _PID.startswith(name)) or name == "p"
            files += [value] if glued and value else []
            if len(name) > 1 and "args".startswith(name):  # (--args, or a prefix: --ar)
                arguments = True
    return Loaded(tuple(files), unknown)


#: ELF's file types gdb loads as a program (relocatable, executable, shared object); a core file
#: is type 4 (``ET_CORE``).
_ELF_PROGRAMS = frozenset({1, 2, 3})


def may_be_core(path: Path) -> bool:
    """Whether gdb may load ``path`` as a core file: it loads the shared libraries the process
    had, by the names the core's memory holds (relative ones from the folder gdb runs in, or
    through ``solib-search-path``), and auto-loads what comes with each (``LIB-gdb.py``
    beside ``out/libx.so`` ran under ``gdb -batch src/prog src/core``: proven, gdb 13, s175).
    Those names are not read here, so a core file's libraries may be any file, as an attached
    process's are. A word naming no file is no core; a file that is not plainly an ELF program
    (or cannot be read) may be one."""
    try:
        with open(path, "rb") as file:
            head = file.read(18)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return False
    except OSError:
        return True
    if len(head) < 18 or head[:4] != b"\x7fELF" or head[5] not in (1, 2):
        return True
    return int.from_bytes(head[16:18], "little" if head[5] == 1 else "big") not in _ELF_PROGRAMS


def auto_loaded(path: Path) -> list[Path]:
    """The files gdb auto-loads code from for the program ``path``: the program itself (its
    ``.debug_gdb_scripts`` section), the scripts beside it, and beside the file it links to."""
    found: list[Path] = []
    for program in dict.fromkeys((path, Path(os.path.realpath(path)))):
        found += [program, *(program.parent / f"{program.name}{s}" for s in AUTO_LOAD_SUFFIXES)]
    return found


def debug_folders(path: Path) -> list[Path]:
    """Where gdb looks for the separate debug file of the program ``path`` (the file its
    ``.gnu_debuglink`` names: in the program's folder, and in ``.debug`` below it), whose own
    ``.debug_gdb_scripts`` it auto-loads."""
    folders: list[Path] = []
    for program in dict.fromkeys((path, Path(os.path.realpath(path)))):
        folders += [program.parent, program.parent / ".debug"]
    return folders
