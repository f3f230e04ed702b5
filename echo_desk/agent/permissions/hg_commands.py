"""How hg reads the command line of a command that writes where its words say, for
``hg_folder_writes`` (the folders clone, init, share and archive make) and ``hg_file_writes``
(the files bundle, cat -o, export -o, serve's logs… write): one reading of the words for both.

hg reads its global options before the command, and those and the command's own anywhere
before ``--`` (``--cwd`` too: paths are read from where it leads); a unique prefix of a
command's name or of a long option names it. An option not known here, or a word known only
when the line runs where the command or an option could be, makes the place not known
(``None``: the write rules ask). Version read: hg 6.3 (``mercurial/dispatch.py``,
``commands.py``, ``cmdutil.findcmd``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from echo_desk.agent.permissions.folder_writes import Form, known, values_of
from echo_desk.agent.permissions.options import Option, OptionSet, Parsed, flags, read_options, values

Paths = tuple[str | None, ...]

#: hg's global options (``commands.globalopts``): before the command, and among its own.
GLOBAL = (*flags("-y|--noninteractive -q|--quiet -v|--verbose --debug --debugger --traceback --time --profile "
                 "--version -h|--help --hidden --no-hidden"),
          *values("-R|--repository --cwd --color --config --encoding --encodingmode --pager"))
#: What makes a word a URL to hg (``urlutil.url``): a scheme, then ``:``.
SCHEME = re.compile(r"[a-zA-Z0-9+.\-]+:")
#: Every command ``hg_folder_writes``, ``hg_file_writes`` and ``hg_moves`` read: a word names the
#: one it is a unique prefix of among them (a prefix hg finds ambiguous stops hg: counting it
#: costs nothing).
WRITING = frozenset({"clone", "share", "init", "archive", "bundle", "cat", "export", "incoming", "serve",
                     "debugdownload", "debuggetbundle", "debugcreatestreamclonebundle", "debug-repair-issue6528",
                     "debugserve", "purge", "copy", "rename"})
#: hg's own other names of commands (``hg help``'s "aliases:"), which hg takes before any prefix
#: (``hg in`` is incoming, not init) and whose prefixes name the command too (``hg cle``: purge).
ALIASES = {"in": "incoming", "clean": "purge", "up": "update", "checkout": "update", "co": "update",
           "cp": "copy", "move": "rename", "mv": "rename"}
#: hg's global options naming the repository a command works on.
REPOSITORY = frozenset({"--repository"})


def spec(*options: tuple[Option, ...]) -> OptionSet:
    """A command's options (``options``) with hg's global ones."""
    return OptionSet((*(o for group in options for o in group), *GLOBAL))


@dataclass(frozen=True)
class Read:
    """A writing command of the line: its name, its words read by its form's options and the
    values of ``--cwd`` and of ``-R`` among them and hg's global options."""

    command: str
    parsed: Parsed
    cwds: tuple[str | None, ...]
    repositories: tuple[str | None, ...] = ()


#: The places one command writes, its words read by its form.
Places = Callable[[Read], list[str | None]]


def read(argv: Sequence[str | None], forms: Mapping[str, Form]) -> Read | Literal[False] | None:
    """The hg command ``argv`` read when it is one of ``forms``: ``False`` when it is not,
    ``None`` when that or its words are not known here (an option not known here, a word
    known only when the line runs where the command or an option could be)."""
    parsed = read_options(argv[1:], OptionSet(GLOBAL, permute=False))
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return None  # (hg stops at an option it does not know: not read further here)
    if parsed.rest is None:
        return False
    at = 1 + parsed.rest
    word = argv[at]
    if word is None:
        return None
    command = command_of(word)
    if command is None or command not in forms:
        return False
    own = known(argv[at + 1:], forms[command])
    if own is None:
        return None
    return Read(command, own, tuple(v for p in (parsed, own) for v in values_of(p, frozenset({"--cwd"}))),
                tuple(v for p in (parsed, own) for v in values_of(p, REPOSITORY)))


def command_word(argv: Sequence[str | None]) -> str | None:
    """The word naming the command of the hg line ``argv`` (``""``: none; ``None``: not known
    here: a word known only when the line runs, or an option not known here before it)."""
    at = command_at(argv)
    return None if at is None else "" if at == len(argv) else argv[at]


def command_at(argv: Sequence[str | None]) -> int | None:
    """Where the word naming the command of the hg line ``argv`` is (``len(argv)``: none;
    ``None``: not known here, as for ``command_word``)."""
    parsed = read_options(argv[1:], OptionSet(GLOBAL, permute=False))
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return None
    return len(argv) if parsed.rest is None else 1 + parsed.rest


def written(argv: Sequence[str | None], forms: Mapping[str, Form], places: Places) -> Paths:
    """The places the hg command ``argv`` writes when it is one of ``forms`` (``places`` says
    which, from its words read by its form's options), each as read from where ``--cwd``
    leads; none for a command not of ``forms``."""
    command = read(argv, forms)
    if command is None or command is False:
        return () if command is False else (None,)
    return tuple(from_cwd(command.cwds, path) for path in places(command))


def command_of(word: str, commands: frozenset[str] = WRITING) -> str | None:
    """The command of ``commands`` (by default the writing ones) ``word`` names: one of hg's
    other names of it, itself, or a unique prefix of one of those (``hg clon``, ``hg cle``)."""
    if word in ALIASES:
        return ALIASES[word] if ALIASES[word] in commands else None
    found = {name for name in commands if name.startswith(word)}
    found |= {name for alias, name in ALIASES.items() if name in commands and alias.startswith(word)}
    return found.pop() if len(found) == 1 else None


def from_cwd(cwds: Sequence[str | None], path: str | None) -> str | None:
    """``path`` as hg reads it: from the folder ``--cwd`` leads to (``None``: not known here:
    more than one ``--cwd``, a ``$VAR`` or ``~user`` hg expands, a URL)."""
    if path is None or "$" in path or SCHEME.match(path):
        return None
    if path == "~" or path.startswith("~/") or os.path.isabs(path):
        return path
    where = cwds[0] if len(cwds) == 1 else "." if not cwds else None
    if path.startswith("~") or where is None:
        return None
    return os.path.join(where, path)

