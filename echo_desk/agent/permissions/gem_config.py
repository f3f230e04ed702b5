"""The settings files every gem command reads, as RubyGems 3.3 (``Gem::ConfigFile``) finds them.

A gemrc is YAML that decides where gem fetches code from (``:sources:``: a plain ``gem install
NAME`` fetched from the server a written ~/.gemrc named, proven with a loopback server, s193),
where it installs (``:gemhome:``) and default options of every command (``install: --bindir
…``). gem reads, at every command (``--norc`` skips them; they count here all the same): the
system's ``/etc/gemrc``, the user's (``--config-file``'s value, else ``$GEMRC``, else ~/.gemrc,
or ~/.config/gem/gemrc: those two are ``program_options.HOME_SETTINGS`` and
``CONFIG_HOME_SETTINGS``) and every file of ``$GEMRC`` (a ``:``-separated list, each relative
to the folder gem runs in).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import line_environment

#: ``Gem::ConfigFile::SYSTEM_WIDE_CONFIG_FILE`` (ruby's ``sysconfdir``: /etc on Debian).
SYSTEM_FILE = Path("/etc/gemrc")
_CONFIG_FILE = "--config-file"


def settings_files(words: Sequence[str | None], cwds: Sequence[Path],
                   home: Path | None) -> tuple[list[Path], bool]:
    """The gemrc files gem reads besides the user's own, given its arguments ``words``, run from
    any of ``cwds`` (a word ``~/…`` is under ``home``); with ``True``: a word not known here may
    name one anywhere. gem scans every argument for ``--config-file FILE`` and
    ``--config-file=FILE`` before it parses any."""
    named: list[str] = [f for f in line_environment.get("GEMRC", "").split(os.pathsep) if f]
    unknown = False
    for k, word in enumerate(words):
        if word is None:
            unknown = True
        elif word.startswith(_CONFIG_FILE + "="):
            named.append(word[len(_CONFIG_FILE) + 1:])
        elif word == _CONFIG_FILE and k + 1 < len(words):
            following = words[k + 1]
            if following is None:
                unknown = True
            else:
                named.append(following)
    found = [SYSTEM_FILE]
    for name in named:
        if name.startswith("~/") and home is not None:
            name = str(home / name[2:])
        for cwd in cwds:
            path = cwd / name
            found += [Path(os.path.normpath(path)), Path(os.path.realpath(path))]
    return list(dict.fromkeys(found)), unknown
