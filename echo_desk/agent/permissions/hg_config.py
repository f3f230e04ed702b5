"""The files hg's settings name, read as hg (6.x, ``mercurial/config.py``) reads its settings files.

hg runs what its settings name: a hook given as a shell command (``pre-status = sh tools/h.sh``,
run in the repository's top folder) or as a python file (``python:tools/h.py:f``), an
extension loaded from a file (``[extensions] x = tools/ext.py``, found from the folder hg runs
in), a merge tool (``merge-tools.x.executable``); and it reads the settings files ``%include``
names (relative to the including file). The person's own ``~/.hgrc`` or a repository's
``.hg/hgrc`` may name such a file in a folder the agent may write: a rule for an hg command is
then a rule for whatever the agent put there (``settings_files``), as for git (``git_config``).
A repository ``hg share`` made reads the settings of the repository its ``.hg/sharedpath``
names too (``shared_sources``): hooks the agent writes there run under an hg command in the
share, wherever the share is (proven, hg 6.3).

Every word of every value that holds a ``/`` counts as a path (the engine does not decide
which settings run programs), and every value of ``[extensions]``; a file that cannot be read
or parsed names the folder hg runs in, below too. What a hook's command reads where it runs
(a word without a ``/``, a Makefile, a module a python hook imports) is ``hg_hooks``' business.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.git_config import ANYWHERE, Named, parsed

#: hg follows ``%include`` without a limit; deeper than this is not read here (fail closed).
_DEPTH = 10
#: Where hg reads the system's settings when ``$HGRCPATH`` is not set (``scmposix.systemrcpath``):
#: the ``hgrc`` and every ``*.rc`` of ``hgrc.d`` of this folder, below ``/`` and below the folder
#: above the folder of the hg program as it was started (``sys.argv[0]``: /usr/bin/hg reads
#: /usr/etc/mercurial, an hg in a virtual environment ``.venv/etc/mercurial``: proven, hg 6.3).
SYSTEM = "etc/mercurial"
_SECTION = re.compile(r"\[([^\[]+)\]")
_ITEM = re.compile(r"([^=\s][^=]*?)\s*=\s*((.*\S)?)")
_CONTINUED = re.compile(r"\s+(\S|\S.*\S)\s*$")
_EMPTY = re.compile(r"(;|#|\s*$)")
_COMMENT = re.compile(r"(;|#)")
_UNSET = re.compile(r"%unset\s+(\S+)")
_INCLUDE = re.compile(r"%include\s+(\S|\S.*\S)\s*$")
#: What separates the words of a value run by the shell (``cd tools && ./x``).
_WORD = re.compile(r"[^\s;&|()<>`'\"=]+")


def settings_files(home: Path | None, roots: Sequence[Path], sources: Sequence[Path] = (),
                   systems: Sequence[Path] = (Path("/") / SYSTEM,)) -> list[Path]:
    """The settings files hg reads: those ``$HGRCPATH`` names (in the environment the commands
    inherit from Echo Desk; a folder gives its ``*.rc`` files), the system's (in each folder of
    ``systems``, ``system_folders``), the user's and, for each repository of ``roots``, its
    own, and the ``hgrc`` of each folder of ``sources`` (the repositories shares name,
    ``shared_sources``). (With ``$HGRCPATH`` set hg skips the system's and the user's: every
    one counts here all the same.)"""
    files = list(rc_path_files()) + [f for folder in rc_path_folders() for f in _rc_files(folder)]
    files += [f for folder in systems for f in (folder / "hgrc", *_rc_files(folder / "hgrc.d"))]
    if home is not None:
        files += [home / ".hgrc", home / ".config" / "hg" / "hgrc"]
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        files.append(Path(xdg) / "hg" / "hgrc")
    for root in roots:
        files += [root / ".hg" / "hgrc", root / ".hg" / "hgrc-not-shared"]
    files += [source / "hgrc" for source in sources]
    return list(dict.fromkeys(files))


def system_folders(runner: str | None, cwds: Sequence[Path]) -> list[Path]:
    """The folders of the system's settings of hg started as ``runner`` from any of ``cwds``
    (see ``SYSTEM``): hg takes the folder above its program's folder from the path it was
    started as, as written (``bin/hg`` and ``./hg`` give the folder it runs in). A bare name is
    started from every folder of ``PATH`` (in the environment the commands inherit from Echo
    Desk; an empty one is the folder it runs in)."""
    name = runner or "hg"
    started = [name] if "/" in name else [os.path.join(entry, name) for entry in line_environment.get("PATH").split(os.pathsep)]
    found = [Path("/") / SYSTEM]
    for program in started:
        prefix = os.path.dirname(os.path.dirname(program))
        if prefix == "/":
            continue  # (hg skips it: / is read anyway)
        for cwd in cwds:
            path = cwd / prefix / SYSTEM
            found += [Path(os.path.normpath(path)), Path(os.path.realpath(path))]
    return list(dict.fromkeys(found))


def shared_sources(roots: Sequence[Path], starts: Sequence[Path]) -> tuple[list[Path], bool]:
    """The folders the ``.hg/sharedpath`` of the repositories ``roots`` name, as hg (6.x,
    ``localrepo._getsharedvfs``) reads them: a share (``hg share``) takes its store, its
    ``requires`` and (``share-safe``, the default since 6.1) its ``hgrc`` from there. A
    relative path is relative to the share's ``.hg`` with ``relshared``, to the folder hg runs
    in without it: both count, as does every folder of ``starts``. With ``True``: a sharedpath
    not read, which may name any folder."""
    found: list[Path] = []
    unknown = False
    for root in roots:
        try:
            text = parsed(root / ".hg" / "sharedpath", _shared_path)
        except FileNotFoundError:
            continue  # (not a share)
        except OSError:
            text = None
        if not text:
            unknown = True
            continue
        bases = [root / ".hg", *starts, root]
        found += [Path(os.path.normpath(base / text)) for base in bases] if not os.path.isabs(text) else [Path(text)]
    return list(dict.fromkeys(found)), unknown


def _shared_path(text: str) -> str | None:
    """The folder a ``.hg/sharedpath`` names (hg strips the line's end only)."""
    return text.rstrip("\n") or None


def rc_path_folders() -> list[Path]:
    """The folders ``$HGRCPATH`` names: hg reads every ``*.rc`` file in them."""
    return [Path(e) for e in line_environment.get("HGRCPATH", "").split(os.pathsep) if os.path.isabs(e) and os.path.isdir(e)]


def rc_path_files() -> list[Path]:
    """The files ``$HGRCPATH`` names (that are not folders)."""
    return [Path(e) for e in line_environment.get("HGRCPATH", "").split(os.pathsep)
            if os.path.isabs(e) and not os.path.isdir(e)]


def _rc_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(".rc"))
    except OSError:
        return []


def named(files: Sequence[Path], bases: Sequence[Path], home: Path | None) -> list[Named]:
    """What the settings ``files`` name, each relative word read from every folder of ``bases``
    (the folders hg runs in and their repositories' top folders: a hook runs in the latter, an
    extension is found from the former). A file not read or parsed names each of ``bases``."""
    found: list[Named] = []
    for path in files:
        found += _file_names(path, bases, home, 0)
    return list(dict.fromkeys(found))


def all_entries(files: Sequence[Path], home: Path | None) -> list[tuple[str, str, str]] | None:
    """Every ``(section, key, value)`` of the settings ``files`` and of the files they include
    (``%include``), in the order hg reads them. ``None``: a file not read or parsed, or
    includes deeper than ``_DEPTH``: it may say anything."""
    found: list[tuple[str, str, str]] = []
    todo = [(path, 0) for path in files]
    while todo:
        path, depth = todo.pop(0)
        try:
            read = parsed(path, entries)
        except FileNotFoundError:
            continue  # (hg skips a settings file that is not there)
        except OSError:
            return None
        if read is None or depth > _DEPTH:
            return None
        for section, key, value in read:
            if section is not None:
                found.append((section, key, value))
                continue
            included = expanded(value, home)  # %include, relative to the including file
            if included is None:
                return None
            todo.append((Path(os.path.normpath(path.parent / included)), depth + 1))
    return found


#: hg 6.3's own short names of its commands (``commands.table``): ``[defaults]`` takes the
#: command's full name, which ``hg st`` names as well as ``hg status``.
SHORT_NAMES = {"status": ("st",), "commit": ("ci",), "update": ("up", "checkout", "co"), "log": ("history",),
                "annotate": ("blame",), "bookmarks": ("bookmark",), "config": ("showconfig", "debugconfig"),
                "copy": ("cp",), "identify": ("id",), "import": ("patch",), "incoming": ("in",),
                "outgoing": ("out",), "purge": ("clean",), "remove": ("rm",), "rename": ("move", "mv"),
                "summary": ("sum",), "debugdirstate": ("debugstate",), "debug-revlog-index": ("debugindex",),
                "debugrebuilddirstate": ("debugrebuildstate",), "debugrequires": ("debugrequirements",)}

SHORT_WORDS = frozenset(n for names in SHORT_NAMES.values() for n in names)


def redefined(files: Sequence[Path], home: Path | None, word: str) -> bool:
    """Whether the settings ``files`` may change what the hg command ``word`` does, so that its
    words no longer say it: an ``[alias]`` the word names (hg takes an alias of its own
    command's name over the command: ``[alias] status = !touch x`` runs at ``hg status``; a
    word also names the alias it is a prefix of), a ``[defaults]`` of the command it may name
    (words hg adds before the line's: ``[defaults] cat = -o ~/.bashrc`` writes there at ``hg
    cat f``; both proven, hg 6.3), or a file not read, which may hold either."""
    found = all_entries(files, home)
    if found is None:
        return True
    # (hg takes a word that is one of its commands' own names as it is: `hg st` stays status
    # under `[alias] status = …`; every other word may be a prefix of an alias)
    own = word in SHORT_WORDS
    for section, key, value in found:
        name = key.partition(":")[0]
        if section == "alias" and (name == word or (not own and name.startswith(word))):
            return True
        if section == "defaults" and value and any(n.startswith(word) for n in (name, *SHORT_NAMES.get(name, ()))):
            return True
    return False


def _file_names(path: Path, bases: Sequence[Path], home: Path | None, depth: int) -> list[Named]:
    unknown = [Named(b, folder=True) for b in bases]
    try:
        read = parsed(path, entries)
    except FileNotFoundError:
        return []  # (hg skips an included file that is not there)
    except OSError:
        return unknown
    if read is None or depth > _DEPTH:
        return [ANYWHERE]  # (what it names may be anywhere)
    found: list[Named] = []
    for section, _, value in read:
        if section is None:  # %include, relative to the including file
            included = expanded(value, home)
            if included is None:
                return unknown
            target = Path(os.path.normpath(path.parent / included))
            found += [Named(target), *_file_names(target, bases, home, depth + 1)]
            continue
        words = _WORD.findall(value)
        if section == "extensions" and value and not value.startswith("!"):
            words.append(value)  # a file to load, slash or not (`x = ext.py`)
        for word in words:
            if word.startswith("python:"):  # a python hook's file: python:FILE:FUNCTION
                word = word[len("python:"):].rpartition(":")[0] or word
            elif "/" not in word and not (section == "extensions" and word == value):
                continue
            named_path = expanded(word, home)
            if named_path is None:
                return unknown
            found += [Named(Path(os.path.normpath(b / named_path))) for b in (path.parent, *bases)]
    return found


def expanded(value: str, home: Path | None) -> str | None:
    """A path as hg expands it (``util.expandpath``): ``$VAR`` from the environment the commands
    inherit from Echo Desk, ``~`` the home folder (``None``: another user's home, or no home)."""
    value = os.path.expandvars(value)
    if value == "~" or value.startswith("~/"):
        return None if home is None else str(home / value[2:])
    if value.startswith("~"):
        return None
    return value


def entries(text: str) -> tuple[tuple[str | None, str, str], ...] | None:
    """The ``(section, key, value)`` entries of an hgrc (lowercase section; ``None`` for a
    ``%include`` line, whose value is the file it names). ``None``: a file not read or not
    parsed (hg stops with a parse error)."""
    lines = text.splitlines()
    entries: list[tuple[str | None, str, str]] = []
    section = ""
    continues = False  # (a line starting with blanks continues the value of the item before it)
    for text in lines:
        if continues:
            if _COMMENT.match(text):
                continue
            if (more := _CONTINUED.match(text)) is not None:
                entries[-1] = (section, entries[-1][1], entries[-1][2] + "\n" + more.group(1))
                continue
            continues = False
        if (include := _INCLUDE.match(text)) is not None:
            entries.append((None, "", include.group(1)))
        elif _EMPTY.match(text):
            continue
        elif (header := _SECTION.match(text)) is not None:
            section = header.group(1).strip().lower()
        elif (item := _ITEM.match(text)) is not None:
            entries.append((section, item.group(1), item.group(2)))
            continues = True
        elif not _UNSET.match(text):
            return None
    return tuple(entries)
