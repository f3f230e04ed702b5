"""What the sandbox hides from every command, each place with why: the one list ``launch``
empties for a command and Settings › Sandbox shows the person (the page reads it from here and
computes nothing of its own).

Three kinds of place: the secret places of the home folder at their default (``paths``), the
session's runtime folder, and where the environment moves a secret place (``moved.hidden``:
``GNUPGHOME=~/keys/gnupg``). A place is listed whether it exists or not: one that does not exist
now is hidden from the first command after it does. What a caller adds (Echo Desk's own folders,
the person's paths) and where a link in a workspace lands (``inventory``) come on top.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from echo_desk.sandbox import moved
from echo_desk.sandbox.paths import HIDDEN_IN_HOME, runtime_folders


class HiddenPlace(NamedTuple):
    """``path`` (absolute) and why it is hidden: ``variable`` moved it there (``""``: the
    default place); ``relative``: the variable's value is relative, so the tool reads it from
    the folder it runs in and the same path is hidden below every folder of each workspace too;
    ``runtime``: the session's runtime folder."""

    path: str
    variable: str = ""
    relative: bool = False
    runtime: bool = False


def always(home: Path, environs: Iterable[Mapping[str, str]]) -> list[HiddenPlace]:
    """Every place hidden from every command, for the home folder ``home`` and the environments
    ``environs`` (Echo Desk's own, as the programs you start later read it, and the command's),
    each once (the first reason found for it: the default before a variable; a relative value
    is kept apart, as it stands for more places than this one)."""
    unique: dict[tuple[str, bool], HiddenPlace] = {}
    for place in _every(home, environs):
        unique.setdefault((place.path, place.relative), place)
    return list(unique.values())


def _every(home: Path, environs: Iterable[Mapping[str, str]]) -> list[HiddenPlace]:
    """``always`` with each reason: a place listed by default and moved there by a variable,
    or moved there by two, is listed for each."""
    real = os.path.realpath(home)
    found = [HiddenPlace(str(home / name)) for name in HIDDEN_IN_HOME]
    found += [HiddenPlace(str(folder), runtime=True) for folder in runtime_folders()]
    for path, relative, variable in moved.hidden(real, environs):
        found.append(HiddenPlace(os.path.normpath(f"{real}/{path}") if relative else path, variable, relative))
    return found


def naming(home: Path, environs: Iterable[Mapping[str, str]], path: str) -> list[str]:
    """The variables whose hidden place of this list is ``path`` (a real path), to say why it is
    hidden (``launch`` refuses a command that would run in it): one whose place resolves to it,
    or a relative one it ends with (``GNUPGHOME=.``: every folder), as ``launch`` hides it below
    every folder of a workspace."""
    real = os.path.realpath(home)
    found: list[str] = []
    for place in _every(home, environs):
        if not place.variable:
            continue
        if not place.relative:
            named = os.path.realpath(place.path) == path
        else:
            below = os.path.relpath(place.path, real)
            named = below == "." or path.endswith("/" + below) or os.path.realpath(place.path) == path
        if named:
            found.append(place.variable)
    return list(dict.fromkeys(found))


def here(home: Path | None = None) -> list[HiddenPlace]:
    """``always`` for Echo Desk's own environment: what a command started now has hidden."""
    return always(Path.home() if home is None else home, (os.environ,))
