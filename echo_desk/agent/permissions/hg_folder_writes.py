"""The folders hg creates and fills, for the write rules to judge (``Reading.written_below``),
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
- ``hg archive DEST``: DEST (a folder of the repository's files, or an archive file).

hg reads its global options before the command, and those and the command's own anywhere
before ``--`` (``--cwd`` too: paths are read from where it leads); a unique prefix of a
command's name or of a long option names it. hg expands ``~`` and ``$VAR`` in a folder it
creates itself: a ``$`` the shell left makes it not known, as does a URL (``ssh://``,
``host:path``) or an option not known here (``None``: the write rules ask). Version read:
hg 6.3 (``mercurial/commands.py``, ``hg.py``, ``hgext/share.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from echo_desk.agent.permissions.folder_writes import Form, Words, first_or, folders, second_or
from echo_desk.agent.permissions.options import Option, OptionSet, flags, read_options, values

Paths = tuple[str | None, ...]

#: hg's global options (``commands.globalopts``): before the command, and among its own.
_GLOBAL = (*flags("-y|--noninteractive -q|--quiet -v|--verbose --debug --debugger --traceback --time --profile "
                  "--version -h|--help --hidden --no-hidden"),
           *values("-R|--repository --cwd --color --config --encoding --encodingmode --pager"))
#: What makes a word a URL to hg (``urlutil.url``): a scheme, then ``:``.
_SCHEME = re.compile(r"[a-zA-Z0-9+.\-]+:")


def _spec(*options: tuple[Option, ...]) -> OptionSet:
    return OptionSet((*(o for group in options for o in group), *_GLOBAL))


def _default_dest(source: str | None) -> str | None:
    """The folder ``hg clone SOURCE`` and ``hg share SOURCE`` make without one named (hg's
    ``defaultdest``): the last part of the source's path, without a ``#branch`` (``None``: not
    known here: a URL without ``//``, an empty path, a word known only when the line runs)."""
    if source is None:
        return None
    path = source
    if (scheme := _SCHEME.match(source)) is not None:
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
    "clone": Form(_spec(flags("-U|--noupdate --pull --uncompressed --stream --insecure"),
                        values("-u|--updaterev -r|--rev -b|--branch -e|--ssh --remotecmd")), second_or(_default_dest)),
    "share": Form(_spec(flags("-U|--noupdate -B|--bookmarks --relative")), second_or(_default_dest)),
    "init": Form(_spec(flags("--insecure"), values("-e|--ssh --remotecmd")), first_or(".")),
    "archive": Form(_spec(flags("--no-decode -S|--subrepos"), values("-p|--prefix -r|--rev -t|--type -I|--include "
                                                                     "-X|--exclude")), _archive),
}
#: hg's own short names that are prefixes of those commands too: ``hg in`` is ``incoming``.
_OTHERS = frozenset({"in"})


def folders_written(argv: Sequence[str | None]) -> Paths:
    """The folders the hg command ``argv`` creates or fills (see the module doc): none for a
    command not read here."""
    parsed = read_options(argv[1:], OptionSet(_GLOBAL, permute=False))
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return (None,)  # (hg stops at an option it does not know: not read further here)
    if parsed.rest is None:
        return ()
    at = 1 + parsed.rest
    command = _command(argv[at])
    if command is None:
        return (None,) if argv[at] is None else ()
    form = _FORMS[command]
    words = argv[at + 1:]
    found = [d for f in folders(words, form) for d in _fragments(f)]
    cwds = [s.value for p in (parsed, read_options(words, form.options)) for s in p.seen
            if s.option is not None and "--cwd" in s.option.names]
    return tuple(_from(cwds, f) for f in found)


def _command(word: str | None) -> str | None:
    """The writing command ``word`` names: itself, or a unique prefix of one (``hg clon``)."""
    if word is None or word in _OTHERS:
        return None
    found = [name for name in _FORMS if name.startswith(word)]
    return found[0] if len(found) == 1 else None


def _fragments(folder: str | None) -> list[str | None]:
    """``hg clone`` takes a DEST with ``#`` as it is, ``hg init`` without what follows it:
    both count."""
    if folder is None or "#" not in folder:
        return [folder]
    return [folder, folder.partition("#")[0] or "."]


def _from(cwds: Sequence[str | None], path: str | None) -> str | None:
    """``path`` as hg reads it: from the folder ``--cwd`` leads to (``None``: not known here:
    more than one ``--cwd``, a ``$VAR`` or ``~user`` hg expands, a URL)."""
    if path is None or "$" in path or _SCHEME.match(path):
        return None
    if path == "~" or path.startswith("~/") or os.path.isabs(path):
        return path
    where = cwds[0] if len(cwds) == 1 else "." if not cwds else None
    if path.startswith("~") or where is None:
        return None
    return os.path.join(where, path)
