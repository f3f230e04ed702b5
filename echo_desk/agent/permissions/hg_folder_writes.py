"""The folders hg creates and fills, or deletes files in, for the write rules to judge (``Reading.written_below``),
as git's (``git_folder_writes``, the same ``folder_writes`` forms). A rule naming hg (``hg
**``) trusts hg, not every place it may put files: with the agent's writes kept to ``out/``,
``hg clone . ~/bin`` checked the repository's programs out into a folder on your ``PATH``,
``hg init ../y`` made a repository beside the workspace and ``hg archive ~/bin`` copied the
files there (proven with hg 6.3), while nothing judged those paths as writes. So each folder
is judged as a write anywhere below it:

- ``hg clone SOURCE [DEST]``: DEST, else the folder hg names after SOURCE (``defaultdest``:
  the last part of its path, ``../r#stable`` clones into ``r``); ``hg share SOURCE [DEST]``
  (the share extension) the same;
- ``hg init [DEST]``: DEST, else the folder it runs in;
- ``hg archive DEST``: DEST (a folder of the repository's files, or an archive file);
- ``hg purge [DIR…]`` (also ``hg clean``) deletes the files hg does not track below each DIR,
  else below the repository's root (``-R``; found above the folder it runs in: not known here):
  ``hg -R ../r purge --no-confirm`` deleted the person's files there (proven with hg 6.3, s201;
  without ``--no-confirm`` hg asks, and a line without a terminal answers no, but a setting
  ``[purge] confirm = False`` or ``--config`` need not be on the line).

A DEST of clone, init and share, and clone's SOURCE when no DEST is given, may be a name of
hg's ``[paths]``, which hg replaces by the place it stands for (``path_names``; ``hg_paths``
reads the settings, ``settings_files.written_folders`` gives the places).

The command line is read as hg reads it (``hg_commands``: global options, a unique prefix of
a command, ``--cwd``). hg expands ``~`` and ``$VAR`` in a folder it creates itself: a ``$``
the shell left makes it not known, as does a URL (``ssh://``, ``host:path``) or an option not
known here (``None``: the write rules ask). Version read: hg 6.3 (``mercurial/commands.py``,
``hg.py``, ``hgext/share.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from echo_desk.agent.permissions.folder_writes import Form, Words, first_or, found, none, second_or
from echo_desk.agent.permissions.hg_commands import SCHEME, Paths, Read, read, spec, written
from echo_desk.agent.permissions.options import flags, values


def _default_dest(source: str | None) -> str | None:
    """The folder ``hg clone SOURCE`` and ``hg share SOURCE`` make without one named (hg's
    ``defaultdest``): the last part of the source's path, without a ``#branch`` (``None``: not
    known here: a URL without ``//``, an empty path, a word known only when the line runs)."""
    if source is None:
        return None
    path = source
    if (scheme := SCHEME.match(source)) is not None:
        rest = source[scheme.end():]
        if not rest.startswith("//"):
            return None  # (host:path, bundle:…: not read here)
        path = rest[2:].partition("/")[2].partition("?")[0]
    path = path.partition("#")[0]
    name = os.path.basename(os.path.normpath(path)) if path else ""
    return name or None


def _archive(operands: Words) -> list[str | None]:
    """``hg archive DEST``: DEST (``-``: the archive goes to the output); a ``%`` in it names
    the folder after the revision (``%h``): not known here."""
    dest = operands[0] if operands else "-"
    if dest == "-":
        return []
    return [None if dest is None or "%" in dest else dest]


#: Each writing command (hg 6.3's tables); any other option makes the folder not known.
_FORMS = {
    "clone": Form(spec(flags("-U|--noupdate --pull --uncompressed --stream --insecure"),
                       values("-u|--updaterev -r|--rev -b|--branch -e|--ssh --remotecmd")), second_or(_default_dest)),
    "share": Form(spec(flags("-U|--noupdate -B|--bookmarks --relative")), second_or(_default_dest)),
    "init": Form(spec(flags("--insecure"), values("-e|--ssh --remotecmd")), first_or(".")),
    "archive": Form(spec(flags("--no-decode -S|--subrepos"), values("-p|--prefix -r|--rev -t|--type -I|--include "
                                                                    "-X|--exclude")), _archive),
    # (its folders are read by ``_purged``; ``--no-X`` turns a flag off)
    "purge": Form(spec(flags("-a|--abort-on-err --all -i|--ignored --dirs --files -p|--print -0|--print0 --confirm "
                             "--no-abort-on-err --no-all --no-ignored --no-dirs --no-files --no-print --no-print0 "
                             "--no-confirm"), values("-I|--include -X|--exclude")), none),
}


def folders_written(argv: Sequence[str | None]) -> Paths:
    """The folders the hg command ``argv`` creates or fills (see the module doc): none for a
    command not read here."""
    return written(argv, _FORMS, _folders)


def _folders(command: Read) -> list[str | None]:
    if command.command == "purge":
        return _purged(command)
    return [d for f in found(command.parsed, _FORMS[command.command]) for d in _fragments(f)]


def _purged(command: Read) -> list[str | None]:
    """``hg purge DIR…`` deletes the files hg does not track below each DIR (a pattern with a
    kind, ``glob:…``, is not known here); without one, below the repository's root: the folder
    ``-R`` names, else not known here (hg finds it above the folder it runs in)."""
    operands = [w for _, w in command.parsed.operands]
    if operands:
        return [None if w is None or ":" in w else w for w in operands]
    return list(command.repositories[-1:]) or [None]


def _fragments(folder: str | None) -> list[str | None]:
    """``hg clone`` takes a DEST with ``#`` as it is, ``hg init`` without what follows it:
    both count."""
    if folder is None or "#" not in folder:
        return [folder]
    return [folder, folder.partition("#")[0] or "."]


@dataclass(frozen=True)
class PathNames:
    """The words of a command that hg looks up among the names of its settings' ``[paths]``
    (``hg_paths``) for the folder it creates: ``folders`` name it (``hg init NAME``: the place
    the name stands for), ``named_after`` give it its name (``hg clone NAME``: the folder named
    after the last part of that place, in the folder hg runs in: ``cwds``)."""

    folders: tuple[str, ...] = ()
    named_after: tuple[str, ...] = ()
    cwds: tuple[str | None, ...] = ()


def path_names(argv: Sequence[str | None]) -> PathNames:
    """The words of the hg command ``argv`` that may be names of ``[paths]`` (hg 6.3: ``init``
    and ``clone`` look DEST up, ``clone`` SOURCE too, ``share`` only a DEST given). A word known
    only when the line runs is left out: ``folders_written`` makes its folder not known."""
    command = read(argv, _FORMS)
    if not isinstance(command, Read) or command.command in ("archive", "purge"):
        return PathNames()
    operands = [w for _, w in command.parsed.operands]
    after: list[str | None]
    if command.command == "init":
        words, after = operands[:1] or ["."], []
    elif len(operands) > 1 or command.command == "share":
        words, after = operands[1:2], []
    else:
        words, after = [], operands[:1]
    return PathNames(tuple(w for w in words if w is not None), tuple(w for w in after if w is not None), command.cwds)
