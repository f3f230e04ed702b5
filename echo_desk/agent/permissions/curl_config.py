"""The files curl's settings file names, read as curl (7.88, ``tool_parsecfg.c``) reads it.

curl reads the first ``.curlrc`` it finds in ``$CURL_HOME``, ``$XDG_CONFIG_HOME`` and the home
folder, a line per option (``output = F``, ``--data @F``, ``-K F``), and follows the files its
``config`` lines name (``-K``, ``--config``; a relative path from the folder curl runs in):
``config = /home/me/dotfiles/curlrc`` makes any option there its own (``output`` writes a
file, proven; ``data = @FILE`` sends one). Where the write rules
let the agent write one of them, a rule for curl is a rule for whatever the agent put there
(``settings_files``), as for git's ``include.path`` (``git_config``).

Every word holding a ``/`` counts as a path, but for an address (``://``); ``~/`` counts both as
written (curl 7.88 does not expand it) and under the home folder. A file that cannot be read
names every folder the command runs in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.git_config import ANYWHERE, Named, parsed

#: Followed this deep (curl follows ``config`` without a limit of its own).
_DEPTH = 10
NAME = ".curlrc"
#: An option and its value: ``name = value``, ``name: value``, ``name value``, ``--name value``.
_LINE = re.compile(r"\s*(\S+?)(?:\s*[=:]\s*|\s+|$)(.*)")
_WORD = re.compile(r"""[^\s;&|()<>`'"=,@]+""")


def settings_files(home: Path | None) -> list[Path]:
    """The ``.curlrc`` files curl may read: in ``$CURL_HOME`` (in the environment the commands
    inherit from Echo Desk), ``$XDG_CONFIG_HOME`` and the home folder."""
    folders = [line_environment.get("CURL_HOME", ""), line_environment.get("XDG_CONFIG_HOME", "")]
    files = [Path(f) / NAME for f in folders if os.path.isabs(f)]
    files += [home / NAME, home / ".config" / NAME] if home is not None else []
    return list(dict.fromkeys(files))


def named(files: Sequence[Path], cwds: Sequence[Path], home: Path | None) -> list[Named]:
    """What the settings ``files`` name (relative words read from each of ``cwds``)."""
    found: list[Named] = []
    for path in files:
        found += _file_names(path, cwds, home, 0)
    return list(dict.fromkeys(found))


def _file_names(path: Path, cwds: Sequence[Path], home: Path | None, depth: int) -> list[Named]:
    unknown = [Named(c, folder=True) for c in cwds]
    try:
        entries = parsed(path, _entries)
    except FileNotFoundError:
        return []
    except OSError:
        return unknown
    if entries is None or depth > _DEPTH:
        return [ANYWHERE]  # (what it names may be anywhere)
    found: list[Named] = []
    for option, value in entries:
        include = option.lstrip("-") in ("config", "K")
        for word in _WORD.findall(value):
            if "://" in word or ("/" not in word and not include):
                continue
            for target in _targets(word, cwds, home):
                found.append(Named(target))
                if include:
                    found += _file_names(target, cwds, home, depth + 1)
    return found


def _targets(word: str, cwds: Sequence[Path], home: Path | None) -> list[Path]:
    """The files ``word`` may name: from each of ``cwds`` as written (curl 7.88 does not expand
    ``~`` there: ``~/x`` is a folder named ``~``), and under the home folder for ``~/``."""
    found = [Path(os.path.normpath(c / word)) for c in cwds]
    if home is not None and word.startswith("~/"):
        found.append(Path(os.path.normpath(home / word[2:])))
    return list(dict.fromkeys(found))


def _entries(text: str) -> tuple[tuple[str, str], ...]:
    """The ``(option, value)`` lines of a curl settings file."""
    lines = text.splitlines()
    entries: list[tuple[str, str]] = []
    for text in lines:
        stripped = text.strip()
        if not stripped or stripped[0] in "#/":  # (curl skips lines starting so)
            continue
        line = _LINE.match(text)
        if line is not None:
            entries.append((line.group(1), line.group(2)))
    return tuple(entries)
