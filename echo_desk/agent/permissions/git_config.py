"""The files and folders the person's git settings name, read as git reads its settings files.

git runs what its settings name: a hook from the folder ``core.hooksPath`` names (a project
often keeps its hooks in the worktree: ``.githooks``, husky's ``.husky/_``), a program given
by path (``diff.external = ./tools/diff.sh``, ``core.fsmonitor``, a filter's ``clean``), and
it reads the settings files ``include.path`` and ``includeIf.*.path`` name (a project may
share ``../.gitconfig`` from its worktree). Where the write rules let the agent write one of
them, a rule for a git command is a rule for whatever the agent put there
(``settings_files``).

Every word of every value that holds a ``/`` counts as a path, but for a URL (the engine does
not decide which settings run programs); a file that cannot be read or parsed names the worktree itself,
so every folder of it counts.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from echo_desk.agent.permissions import git_environment, line_environment, this_verdict

#: What a settings file's parser makes of it.
P = TypeVar("P")
#: Included files followed this deep (git stops at 10).
_DEPTH = 10
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\](.*)')
_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])(.*)")
#: What separates the words of a value run by the shell (``!cd tools && ./x``).
_WORD = re.compile(r"[^\s;&|()<>`'\"!=]+")
#: The home folder's variable in a value the shell runs (``$HOME/tools/d``, ``"${HOME}"/d``): read
#: as ``~`` (s324: ``diff.external = $HOME/tools/d`` ran a planted ~/tools/d under ``git diff``).
_HOME_VARIABLE = re.compile(r'"?\$(?:HOME\b|\{HOME\})"?')


@dataclass(frozen=True)
class Named:
    """A file the settings name (``folder`` false) or a folder any of whose files git may run
    (a hooks folder; also the worktree, when a settings file cannot be read)."""

    path: Path
    folder: bool = False


#: A settings file longer than this is not read (people's settings files are a few kilobytes).
SETTINGS_LIMIT = 1024 * 1024
#: What a settings file names when it is not read whole or not parsed, or includes deeper
#: than its reader follows: any file (the program reads it all the same, and a line not read
#: could name a file anywhere).
ANYWHERE = Named(Path("/"), folder=True)


def parsed(path: Path, parse: Callable[[str], P | None]) -> P | None:
    """What ``parse`` makes of the whole text of the settings file ``path`` (``None``: not read
    whole, or not parsed), parsed once until the file changes (its stat fields key the cache),
    and looked at once a verdict (``this_verdict``).
    Raises ``OSError`` when the file cannot be looked at (``FileNotFoundError``: there is none)."""
    return this_verdict.remembered(("git settings", str(path), parse), lambda: _looked_at(path, parse))


def _looked_at(path: Path, parse: Callable[[str], P | None]) -> P | None:
    stat = path.stat()
    return cast("P | None", _parsed(str(path), stat.st_mtime_ns, stat.st_size, stat.st_ino, parse))


@functools.lru_cache(maxsize=128)
def _parsed(path: str, mtime_ns: int, size: int, inode: int, parse: Callable[[str], object]) -> object:
    del mtime_ns, size, inode
    text = settings_text(path)
    return None if text is None else parse(text)


def settings_text(path: str) -> str | None:
    """The whole text of a settings file (``None``: not read, not UTF-8, or longer than
    ``SETTINGS_LIMIT``). A file read only in part could name a place in the part not read, so
    its reader takes it to name ``ANYWHERE`` instead (fail closed)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(SETTINGS_LIMIT + 1)
    except (OSError, UnicodeDecodeError):
        return None
    return None if len(text) > SETTINGS_LIMIT else text


def named(root: Path, git_dir: Path | None, home: Path | None, subcommand: str | None) -> list[Named]:
    """What the settings a git command run in the worktree ``root`` reads name: the repository's
    own (``git_dir``), the person's (``home``), the system's and those of its environment
    (``git_environment``). Aliases count only for the
    ``subcommand`` they name (``None``: not known, all count)."""
    files = _files(git_dir, home)
    if files is None:
        return [Named(root, folder=True)]
    found: list[Named] = environment_named(root, home, subcommand)
    for path in files:
        found += _file_names(path, root, home, subcommand, 0)
    return list(dict.fromkeys(found))


def environment_named(root: Path, home: Path | None, subcommand: str | None) -> list[Named]:
    """What the settings git takes from its environment name (``git_environment``), read as a
    settings file's are with a relative path in the folder ``root`` (git runs hooks and the
    programs its settings name there); settings not read: any file."""
    given = git_environment.entries()
    if given is None:
        return [ANYWHERE]
    return _entries_names(given, root, root, home, subcommand, 0)


def entries(git_dir: Path | None, home: Path | None) -> list[tuple[str, str | None, str, str]] | None:
    """Every ``(section, subsection, key, value)`` of the settings a git command of the
    repository ``git_dir`` reads, with the files they include (whatever an ``includeIf``'s
    condition: it may hold). ``None``: a file that cannot be read or parsed."""
    files = _files(git_dir, home)
    if files is None:
        return None
    given = git_environment.entries()
    if given is None or any(k == "path" and s in ("include", "includeif") for s, _, k, _ in given):
        return None  # (an included file the environment names: not followed here)
    found: list[tuple[str, str | None, str, str]] = list(given)
    todo = [(path, 0) for path in files]
    while todo:
        path, depth = todo.pop(0)
        try:
            read = parsed(path, _entries)
        except FileNotFoundError:
            continue
        except OSError:
            return None
        if read is None or depth > _DEPTH:
            return None
        for entry in read:
            section, _, key, value = entry
            if key == "path" and section in ("include", "includeif"):
                included = _resolved(value, path.parent, home)
                if included is None:
                    return None
                todo.append((included, depth + 1))
            found.append(entry)
    return found


def file_entries(path: Path) -> tuple[tuple[str, str | None, str, str], ...] | None:
    """The ``(section, subsection, key, value)`` entries of the one settings file ``path``,
    without the files it includes (``()``: there is none; ``None``: not read or not parsed)."""
    try:
        return parsed(path, _entries)
    except FileNotFoundError:
        return ()
    except OSError:
        return None


def included_files(paths: Sequence[Path], home: Path | None) -> list[Path]:
    """The files the settings files ``paths`` include (``include.path``, and ``includeIf.*.path``
    whatever its condition), followed as git follows them (``_DEPTH`` deep); one not resolved
    here (another user's ``~name/…``) is left out."""
    found: list[Path] = []
    todo = [(path, 0) for path in paths]
    while todo:
        path, depth = todo.pop()
        if depth >= _DEPTH:
            continue
        for section, _, key, value in file_entries(path) or ():
            if key == "path" and section in ("include", "includeif"):
                target = _resolved(value, path.parent, home)
                if target is not None and target not in found:
                    found.append(target)
                    todo.append((target, depth + 1))
    return found


def settings_unread(paths: Sequence[Path], home: Path | None) -> bool:
    """Whether one of the settings files ``paths``, or a file they include (followed as
    ``included_files`` follows them), is there but not read or not parsed here, or is included by
    a path not resolved here (another user's ``~name/…``, which git reads from that user's home
    folder). git reads such a file all the same (one not UTF-8: git 2.39 ran the credential
    helper it set, s322), so what it sets is not seen: its reader fails closed. (Deeper than
    git's limit, or a loop: git refuses to run, so that is not counted.)"""
    seen: set[Path] = set()
    todo = [(path, 0) for path in paths]
    while todo:
        path, depth = todo.pop()
        if depth >= _DEPTH or path in seen:
            continue
        seen.add(path)
        entries = file_entries(path)
        if entries is None:
            return True
        for section, _, key, value in entries:
            if key == "path" and section in ("include", "includeif"):
                target = _resolved(value, path.parent, home)
                if target is None:
                    return True
                todo.append((target, depth + 1))
    return False


def environment_files() -> list[Path]:
    """The settings files ``$GIT_CONFIG_GLOBAL`` and ``$GIT_CONFIG_SYSTEM`` name, read instead of
    the person's and the system's (proven, git 2.39: its ``core.fsmonitor`` ran under ``git
    status``); an absolute one only (see ``line_environment`` for a relative one on the line)."""
    named = (line_environment.get(v) for v in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"))
    return [Path(value) for value in named if os.path.isabs(value)]


def _files(git_dir: Path | None, home: Path | None) -> list[Path] | None:
    """The settings files git reads (the system's, the person's, the repository's; ``None``: a
    linked worktree's shared folder not known)."""
    files = [Path("/etc/gitconfig")]
    if home is not None:
        files += [home / ".gitconfig", home / ".config" / "git" / "config"]
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        files.append(Path(xdg) / "git" / "config")
    files += environment_files()
    if git_dir is not None:
        own = repository_files(git_dir)
        if own is None:
            return None
        files += own
    return list(dict.fromkeys(files))


def repository_files(git_dir: Path) -> list[Path] | None:
    """The repository ``git_dir``'s own settings files (``None``: a linked worktree's shared
    folder not known)."""
    common = common_dir(git_dir)
    if common is None:
        return None
    return [git_dir / "config", git_dir / "config.worktree", *([common / "config"] if common != git_dir else [])]


def default_hooks(git_dir: Path | None) -> list[Path]:
    """The hooks folder git uses when ``core.hooksPath`` is not set: ``hooks`` of the folder a
    linked worktree shares with its main one (none known: ``named`` gives the worktree)."""
    common = None if git_dir is None else common_dir(git_dir)
    return [] if common is None else [common / "hooks"]


def common_dir(git_dir: Path) -> Path | None:
    """The folder holding a linked worktree's shared settings (``commondir``), else ``git_dir``."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return git_dir
    except (OSError, UnicodeDecodeError):
        return None
    return Path(os.path.normpath(git_dir / text))


def _file_names(path: Path, root: Path, home: Path | None, subcommand: str | None, depth: int) -> list[Named]:
    try:
        entries = parsed(path, _entries)
    except FileNotFoundError:
        return []
    except OSError:
        return [Named(root, folder=True)]
    if entries is None or depth > _DEPTH:
        return [ANYWHERE]  # (what it names may be anywhere)
    return _entries_names(entries, path.parent, root, home, subcommand, depth)


def _entries_names(entries: Sequence[tuple[str, str | None, str, str]], base: Path, root: Path, home: Path | None,
                   subcommand: str | None, depth: int) -> list[Named]:
    """What settings ``entries`` name: files they include (relative: in ``base``), a hooks
    folder, each path in a value (relative: in the worktree ``root``)."""
    found: list[Named] = []
    for section, _, key, value in entries:
        if key == "path" and section in ("include", "includeif"):
            included = _resolved(value, base, home)
            if included is None:
                return [ANYWHERE]  # (another user's ``~name/…``: git reads it from that home folder)
            found += [Named(included), *_file_names(included, root, home, subcommand, depth + 1)]
        elif section == "core" and key == "hookspath":
            folder = _resolved(value, root, home)
            found.append(Named(folder, folder=True) if folder is not None else ANYWHERE)
        elif section == "alias" and subcommand is not None and key != subcommand.lower():
            continue  # an alias runs only as its own subcommand (a builtin's name never does)
        elif {"cd", "pushd"} & set(_WORD.findall(value)):
            # A shell line that changes folder (an alias `!cd tools && ./x`): its paths may be
            # below any folder of the worktree.
            found.append(Named(root, folder=True))
        else:
            for word in path_words(value):
                # (another variable's value is not known here: the path may be anywhere)
                target = None if "$" in word else _resolved(word, root, home)
                found.append(Named(target) if target is not None else ANYWHERE)
    return found


def path_words(value: str) -> list[str]:
    """The words of a settings value that git, or the shell line it runs, takes as paths: those
    holding a ``/`` but for URLs (``--file=/a/b`` gives ``/a/b``), the home folder's variable
    read as ``~`` (``$HOME/x`` gives ``~/x``)."""
    return [word for word in _WORD.findall(_HOME_VARIABLE.sub("~", value)) if "/" in word and not _url(word)]


def _url(word: str) -> bool:
    """Whether git reads ``word`` as a URL, not a path (``https://…``; ``host:path``, a colon
    before the first slash, is ssh's form), as ``remote.*.url`` and ``url.*.insteadOf`` hold."""
    return "://" in word or ":" in word.partition("/")[0]


def _resolved(value: str, base: Path, home: Path | None) -> Path | None:
    """A path as git reads it: ``~/`` under the home folder, a relative one under ``base``."""
    if value == "~" or value.startswith("~/"):
        return None if home is None else Path(os.path.normpath(home / value[2:]))
    if value.startswith("~"):
        return None  # another user's home folder
    return Path(os.path.normpath(base / value))


def _entries(text: str) -> tuple[tuple[str, str | None, str, str], ...] | None:
    """The ``(section, subsection, key, value)`` entries of a settings file's text (lowercase
    section and key; ``None``: not parsed)."""
    lines = text.removeprefix("\ufeff").splitlines()  # (git skips a UTF-8 byte order mark)
    entries: list[tuple[str, str | None, str, str]] = []
    section: str | None = None
    subsection: str | None = None
    k = 0
    while k < len(lines):
        text = lines[k]
        k += 1
        header = _SECTION.match(text)
        if header is not None:
            name = header.group(1).lower()
            if header.group(2) is None:  # `[remote.origin]`, the old spelling: lowercased
                section, _, rest = name.partition(".")
                subsection = rest or None
            else:
                section, subsection = name, re.sub(r"\\(.)", r"\1", header.group(2))
            text = header.group(3)
        stripped = text.strip()
        if not stripped or stripped[0] in "#;":
            continue
        found = _KEY.match(text)
        if found is None or section is None:
            return None
        rest = found.group(3) if found.group(2) == "=" else ""
        value, quoted = [], False
        while True:
            i = 0
            while i < len(rest):
                char = rest[i]
                if char == "\\":
                    if i + 1 == len(rest):
                        break  # continued on the next line
                    value.append({"n": "\n", "t": "\t", "b": "\b"}.get(rest[i + 1], rest[i + 1]))
                    i += 2
                    continue
                if char == '"':
                    quoted = not quoted
                elif char in "#;" and not quoted:
                    rest = ""
                    break
                else:
                    value.append(char)
                i += 1
            else:
                break
            if rest and rest.endswith("\\") and k < len(lines):
                rest = lines[k]
                k += 1
                continue
            break
        if quoted:
            return None
        entries.append((section, subsection, found.group(1).lower(), "".join(value).strip()))
    return tuple(entries)
