"""The places hg's ``[paths]`` names stand for, where a folder hg creates is given by one
(``hg_folder_writes``). hg looks the folder ``hg init DEST``, ``hg clone SOURCE DEST`` and
``hg share SOURCE DEST`` are given up among the names of its settings' ``[paths]`` before
taking it as a path: with ``~/.hgrc`` holding ``[paths] e3 = ~/bin``, ``hg init e3`` made
``~/bin/.hg`` and ``hg clone . e3`` checked the repository out into ``~/bin``, and ``hg clone
e3`` (no DEST) clones into the folder named after the last part of the path ``e3`` names
(proven, hg 6.3, under bash and dash). These commands run without a repository: hg takes the
names from the settings it reads outside one (``$HGRCPATH``'s, the system's, the person's),
not from the ``.hg/hgrc`` of the repository they run in (proven too).

hg expands ``$VAR`` and ``~`` in a path's value and reads a relative one from the home folder
(``urlutil.paths``). A value that is a URL (``file://``, ``path://`` naming another of
them), a sub-option ``multi-urls`` (a list of them), a ``~user`` or no home folder makes the
place not known (``None``: the write rules ask), as does a settings file not read or parsed,
where any name may be one. Version read: hg 6.3 (``mercurial/utils/urlutil.py``, ``ui.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions.hg_commands import SCHEME, from_cwd
from echo_desk.agent.permissions.hg_config import all_entries, expanded
from echo_desk.agent.permissions.hg_folder_writes import path_names

#: The sub-option that makes a path's value a list of them.
_MULTI = ":multi-urls"

#: Each name of ``[paths]``, folded (the engine does not rely on hg telling case apart), with
#: every value given to it (an ``%unset`` or a later file may leave another one in force: each
#: counts). ``None``: a file not read, where any name may be one.
Names = dict[str, list[str | None]] | None


def names(files: Sequence[Path], home: Path | None) -> Names:
    """The names the ``[paths]`` of the settings ``files`` give, with what each stands for (an
    absolute path, or ``None``: not known here)."""
    read = all_entries(files, home)
    if read is None:
        return None
    found: dict[str, list[str | None]] = {}
    multi: set[str] = set()
    for section, key, value in read:
        if section == "paths" and key.endswith(_MULTI):
            multi.add(key[:-len(_MULTI)].casefold())
        elif section == "paths" and ":" not in key and value:
            found.setdefault(key.casefold(), []).append(_place(value, home))
    for name in multi & set(found):
        found[name] = [None]
    return found


def _place(value: str, home: Path | None) -> str | None:
    """The folder a path's value names, as hg reads it for a folder it creates."""
    if SCHEME.match(value):
        return None  # (a URL: file://, path://…, not read here)
    place = expanded(value.partition("#")[0], home)
    if place is None or (home is None and not os.path.isabs(place)):
        return None
    return os.path.normpath(place if home is None else os.path.join(home, place))


def standing_for(word: str, table: Names) -> list[str | None]:
    """The places the word ``word`` stands for when it is a name of ``table`` (none: it is
    not one, and stands for itself)."""
    return [None] if table is None else list(table.get(word.casefold(), []))


def folders_named(argv: Sequence[str | None], files: Sequence[Path], home: Path | None) -> list[str | None]:
    """The folders the hg command ``argv`` creates that its words name through the ``[paths]``
    of the settings ``files`` (see the module doc)."""
    named = path_names(argv)
    if not named.folders and not named.named_after:
        return []
    table = names(files, home)
    found = [place for word in named.folders for place in standing_for(word, table)]
    for word in named.named_after:
        for place in standing_for(word, table):
            last = None if place is None else os.path.basename(place)
            found.append(from_cwd(named.cwds, last) if last else None)
    return found
