"""The files ssh's settings name, read as ssh (OpenSSH 9.2, ``readconf.c``) reads its settings.

scp and sftp run ssh, which runs what its settings say before it reaches any host:
``ProxyCommand``, ``LocalCommand``, ``KnownHostsCommand``, ``Match exec``; and it reads the
files ``Include`` names (relative to ``~/.ssh`` in the user's file, to ``/etc/ssh`` in the
system's; a glob names every file it matches: ``Include ~/.ssh/config.d/*``, and the
``Include ~/.orbstack/ssh/config`` or ``~/.colima/ssh_config`` such tools add). Where the write
rules let the agent write one of them, a rule for scp or sftp is a rule for whatever the agent
put there (``settings_files``), as for git's ``include.path`` (``git_config``).

Every word of every value that holds a ``/`` counts as a path (the engine does not decide
which settings run programs); a file that cannot be read names every folder the command runs
in, and the home folder.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions.git_config import ANYWHERE, Named, parsed

#: Included files followed this deep (ssh stops at 16).
_DEPTH = 16
SYSTEM_FILE = Path("/etc/ssh/ssh_config")
USER_FILE = ".ssh/config"
_LINE = re.compile(r"\s*([A-Za-z]+)(?:\s*=\s*|\s+)(.*)")
_WORD = re.compile(r"""[^\s;&|()<>`'"=,]+""")
_GLOB = re.compile(r"[*?\[]")


def named(home: Path | None, cwds: Sequence[Path]) -> list[Named]:
    """What the user's (``~/.ssh/config``) and the system's settings name, relative words of a
    command read from each of ``cwds`` (ssh runs it in the folder it runs in)."""
    found = _file_names(SYSTEM_FILE, SYSTEM_FILE.parent, home, cwds, 0)
    if home is not None:
        found += _file_names(home / USER_FILE, home / ".ssh", home, cwds, 0)
    return list(dict.fromkeys(found))


def _file_names(path: Path, base: Path, home: Path | None, cwds: Sequence[Path], depth: int) -> list[Named]:
    unknown = [Named(f, folder=True) for f in (*cwds, *([home] if home is not None else []))]
    try:
        entries = parsed(path, _entries)
    except FileNotFoundError:
        return []  # (ssh skips an included file that is not there)
    except OSError:
        return unknown
    if entries is None or depth > _DEPTH:
        return [ANYWHERE]  # (what it names may be anywhere)
    found: list[Named] = []
    for keyword, value in entries:
        for word in _WORD.findall(value):
            if keyword == "include":
                included = _expanded(word, home)
                if included is None:
                    return unknown
                target = Path(os.path.normpath(base / included))
                if _GLOB.search(str(target)):
                    # Every file the glob may match once the agent has written one: the whole
                    # folder before its first wildcard, below too.
                    found.append(Named(Path(_GLOB.split(str(target))[0]).parent, folder=True))
                    matches = [Path(m) for m in sorted(glob.glob(str(target)))]
                else:
                    matches = [target]
                for match in matches:
                    found += [Named(match), *_file_names(match, base, home, cwds, depth + 1)]
            elif "/" in word:
                expanded = _expanded(word.replace("%d", "~"), home)
                if expanded is None:
                    return unknown
                found += [Named(Path(os.path.normpath(c / expanded))) for c in cwds]
    return found


def _expanded(value: str, home: Path | None) -> str | None:
    """A path as ssh expands it: ``~`` the home folder (``None``: another user's, or no home)."""
    if value == "~" or value.startswith("~/"):
        return None if home is None else str(home / value[2:])
    if value.startswith("~"):
        return None
    return value


def _entries(text: str) -> tuple[tuple[str, str], ...] | None:
    """The ``(keyword, value)`` lines of an ssh settings file (lowercase keyword; ``None``: not
    read, or a line not read the way ssh reads it)."""
    lines = text.splitlines()
    entries: list[tuple[str, str]] = []
    for text in lines:
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        line = _LINE.match(text)
        if line is None:
            return None
        entries.append((line.group(1).lower(), line.group(2)))
    return tuple(entries)
