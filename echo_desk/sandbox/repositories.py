"""Every git repository in a workspace: its ``.git`` entries, git folders and hooks folders.

Found by a breadth-first walk of the workspace's folders, nearest first, which never follows a
symbolic link and does not enter ``.git`` folders (their submodules and worktrees are read from
``modules/`` and ``worktrees/``). A folder that is a git folder itself — it holds ``HEAD`` and
``objects/`` with ``refs/`` (or a ``commondir``), as a bare repository does — is one too: git run
in it uses its hooks and settings. The walk is bounded so a huge workspace does not make every
command slow: at most ``MAX_FOLDERS`` folders are read, and folders whose contents a package
manager or a tool owns, where nobody runs git, are not entered: ``node_modules`` (npm's), a
virtual environment (it holds ``pyvenv.cfg``, PEP 405), a folder tagged as a cache with a
``CACHEDIR.TAG`` (https://bford.info/cachedir/: cargo's ``target``, pytest's, mypy's, ruff's) and
a git folder's own contents. A repository beyond that is not found (said in the result:
``Found.cut``).

The walk after a command is given the one before it (``find(..., before=)``): what the command
could do to the workspace must not hide a repository from it. Every folder read before is read
again (outside the bound), and a folder is left unentered only if it was left so before: a cache
tag, a ``pyvenv.cfg`` or a git folder's look that the command made does not count.

A folder's listing is kept between walks and read again only when the folder changed: its
change time (``ctime``, which a program cannot set back, unlike ``mtime``) differs, or was too
close to the moment of the last reading to tell (as git does with its index: "racy" entries).
"""

from __future__ import annotations

import collections
import os
import stat
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.sandbox import gitconfig, runs_code, unlock

MAX_FOLDERS = 1000
#: Folder names whose contents belong to a package manager: a person does not run git there.
NOT_ENTERED = frozenset({"node_modules"})
#: A folder holding one of these is owned by a tool (a cache, a virtual environment): not entered.
OWNED_BY_A_TOOL = frozenset({"CACHEDIR.TAG", "pyvenv.cfg"})
#: A listing read less than this after the folder last changed is read again next time.
_RACY_NS = 2_000_000_000
_MAX_CACHED = 50_000
#: Submodule and worktree git folders inside one ``.git`` (a bound against a hostile tree).
_MAX_INNER = 256


@dataclass(frozen=True)
class _Listing:
    dev: int
    ino: int
    ctime_ns: int
    read_ns: int
    folders: tuple[str, ...]
    #: ``.git`` entries: name, and whether it is a folder (a link or a file is not).
    git: tuple[tuple[str, bool], ...]
    tagged: bool
    #: The folder is a git folder itself (``HEAD`` and ``objects/``, ``refs/`` or a ``commondir``).
    gitdir: bool = False
    #: Names of the protected list read from every folder (``runs_code.IN_EVERY_FOLDER``) found here.
    named: tuple[str, ...] = ()


#: What its owner needs to list a folder and look at what is in it.
_LISTABLE = stat.S_IRUSR | stat.S_IXUSR

_lock = threading.Lock()
_listings: dict[str, _Listing] = {}


@dataclass(frozen=True)
class GitEntry:
    """A ``.git`` folder, or a ``.git`` file (or link), as an absolute path; ``bare``: a folder
    of another name that is a git folder itself."""

    path: str
    folder: bool
    bare: bool = False


@dataclass(frozen=True)
class Found:
    """The ``.git`` entries of a workspace; ``cut``: the walk stopped at its bound. ``left``: the
    folders read whose subfolders were not entered (owned by a tool)."""

    entries: tuple[GitEntry, ...]
    cut: bool = False
    folders_read: int = 0
    #: Each folder read, with the names of its subfolders then.
    read: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    left: frozenset[str] = frozenset()
    #: Of each folder entered, the subfolders it queued (all, or as many as the bound allowed).
    queued: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Every file (or anything else) of a name read from every folder (``runs_code.IN_EVERY_FOLDER``)
    #: in the folders read, as absolute paths.
    named: tuple[str, ...] = ()


def _is_git_name(name: str) -> bool:
    # Case-folded: on a file system that folds case, ``.GIT`` is what git opens as ``.git``.
    return name.casefold() == ".git"


def _read(path: str, st: os.stat_result) -> _Listing:
    folders: list[str] = []
    git: list[tuple[str, bool]] = []
    tagged = False
    marks: set[str] = set()
    named: list[str] = []
    with os.scandir(path) as entries:
        for entry in entries:
            name = entry.name
            # (Case-folded, as ``.git``: a file system may fold case.)
            if name.casefold() in runs_code.IN_EVERY_FOLDER and runs_code.in_every_folder(f"{path}/{name}"):
                named.append(name)
            if _is_git_name(name):
                git.append((name, entry.is_dir(follow_symlinks=False)))
                continue
            if name in _GITDIR_MARKS:
                marks.add(name)
            if name in OWNED_BY_A_TOOL:
                tagged = True
            elif entry.is_dir(follow_symlinks=False) and name not in NOT_ENTERED:
                folders.append(name)
    gitdir = "HEAD" in marks and ("commondir" in marks or {"objects", "refs"} <= marks)
    return _Listing(st.st_dev, st.st_ino, st.st_ctime_ns, time.time_ns(), tuple(folders), tuple(git), tagged,
                    gitdir, tuple(named))


#: What makes git take a folder for a git folder (``is_git_directory`` in git's setup.c: a
#: ``HEAD``, and ``objects`` and ``refs`` here or in the folder ``commondir`` names). Checked
#: loosely (a ``HEAD`` of any kind): one taken for a repository wrongly is only watched.
_GITDIR_MARKS = frozenset({"HEAD", "objects", "refs", "commondir"})


def _listing(path: str) -> _Listing | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    if st.st_mode & _LISTABLE != _LISTABLE and unlock.path(path):
        st = os.lstat(path)  # (a folder without search: what is in it cannot be looked at either)
    known = _listings.get(path)  # a dict read needs no lock (the GIL); writes take it
    if (known is not None and known.ino == st.st_ino and known.ctime_ns == st.st_ctime_ns
            and known.dev == st.st_dev and known.read_ns - st.st_ctime_ns > _RACY_NS):
        return known
    try:
        fresh = _read(path, st)
    except PermissionError:
        # Made unreadable by a command: opened up again during the check after it (``unlock``).
        if not unlock.path(path):
            return None
        try:
            st = os.lstat(path)
            fresh = _read(path, st)
        except OSError:
            return None
    except OSError:
        return None
    with _lock:
        if len(_listings) >= _MAX_CACHED:
            _listings.clear()
        _listings[path] = fresh
    return fresh


def find(workspace: Path, max_folders: int = MAX_FOLDERS, before: Found | None = None) -> Found:
    """The ``.git`` entries under ``workspace`` (itself included), nearest first. ``before``: the
    walk taken before a command, when this one is after it (see the module's docstring)."""
    queue = collections.deque([str(workspace)])
    known: Mapping[str, tuple[str, ...]] = before.read if before is not None else {}
    found: list[GitEntry] = []
    named: list[str] = []
    read: dict[str, tuple[str, ...]] = {}
    queued: dict[str, tuple[str, ...]] = {}
    left: list[str] = []
    new = 0  # folders read that the walk before did not read: only those count against the bound
    queued_new = 0 if str(workspace) in known else 1
    cut = False
    while queue:
        folder = queue.popleft()
        listing = _listing(folder)
        if folder not in known:
            new += 1
            queued_new -= 1
        if listing is None:
            read[folder] = ()
            continue
        read[folder] = listing.folders
        found.extend(GitEntry(f"{folder}/{name}", is_dir) for name, is_dir in listing.git)
        named.extend(f"{folder}/{name}" for name in listing.named)
        if listing.gitdir:
            found.append(GitEntry(folder, True, bare=True))
        owned = listing.tagged or listing.gitdir
        if before is not None:
            owned = folder in before.left  # only a folder left unentered before is left now
        if owned:
            left.append(folder)
            continue
        room = max(0, max_folders - new - queued_new)  # never queue more than the bound can read
        prior = known.get(folder)
        if before is not None and (prior is listing.folders or prior == listing.folders):
            # The same subfolders as before: the same ones are read again (those not read then
            # were beyond the bound, and are now), named without looking at the others.
            names = before.queued.get(folder, ())
            queued[folder] = names
            queue.extend(f"{folder}/{name}" for name in names)
            cut = cut or len(names) < len(listing.folders)
            continue
        if known:
            children = [f"{folder}/{name}" for name in listing.folders]
            again = [c for c in children if c in known]
            fresh = [c for c in children if c not in known]
        else:  # the walk before a command: only what the bound can read is named (a folder of 20,000)
            again, fresh = [], [f"{folder}/{name}" for name in listing.folders[:room + 1]]
        if len(fresh) > room:
            cut = True
            fresh = fresh[:room]
        queue.extend(again)
        queue.extend(fresh)
        queued_new += len(fresh)
        start = len(folder) + 1
        queued[folder] = tuple(c[start:] for c in (*again, *fresh))
    return Found(tuple(found), cut=cut, folders_read=len(read), read=read, left=frozenset(left), queued=queued,
                 named=tuple(named))


def forget() -> None:
    """Drop the kept listings (tests; a bench measuring a cold walk)."""
    with _lock:
        _listings.clear()
    _names.clear()
    gitconfig.forget()


def gitdir_of_file(dot_git: str) -> str | None:
    """Where a ``.git`` file's ``gitdir:`` line points (relative to the file's folder), normalised."""
    data = gitconfig.read_regular(dot_git, 4096)
    if data is None:
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("gitdir:"):
            return _relative_to(os.path.dirname(dot_git), line[len("gitdir:"):].strip())
    return None


def common_dir_of(gitdir: str) -> str | None:
    """The folder a git folder's ``commondir`` names (normalised), if it has one."""
    data = gitconfig.read_regular(f"{gitdir}/commondir", 4096)
    if data is None:
        return None
    return _relative_to(gitdir, data.decode("utf-8", "replace").strip())


def _relative_to(base: str, value: str) -> str | None:
    if not value or "\x00" in value:
        return None
    return os.path.normpath(value if value.startswith("/") else f"{base}/{value}")


_names: dict[str, tuple[int, int, int, int, frozenset[str]]] = {}


def names_in(folder: str, st: os.stat_result | None = None) -> frozenset[str]:
    """The entry names of ``folder`` (empty when it cannot be read), kept until the folder
    changes (its change time; read again when that was too close to the reading, as ``find``
    does). ``st``: its ``lstat``, if already taken."""
    try:
        st = st or os.lstat(folder)
        if st.st_mode & _LISTABLE != _LISTABLE and stat.S_ISDIR(st.st_mode) and unlock.path(folder):
            st = os.lstat(folder)
    except OSError:
        return frozenset()
    known = _names.get(folder)
    if (known is not None and known[1] == st.st_ino and known[2] == st.st_ctime_ns and known[0] == st.st_dev
            and known[3] - st.st_ctime_ns > _RACY_NS):
        return known[4]
    try:
        found = _scan_names(folder)
    except PermissionError:
        if not unlock.path(folder):
            return frozenset()
        try:
            st = os.lstat(folder)
            found = _scan_names(folder)
        except OSError:
            return frozenset()
    except OSError:
        return frozenset()
    if len(_names) >= _MAX_CACHED:
        _names.clear()
    _names[folder] = (st.st_dev, st.st_ino, st.st_ctime_ns, time.time_ns(), found)
    return found


def _scan_names(folder: str) -> frozenset[str]:
    with os.scandir(folder) as entries:
        return frozenset(e.name for e in entries)


def gitdirs_in(gitdir: str, names: frozenset[str] | None = None) -> list[str]:
    """``gitdir`` and the git folders it holds: ``worktrees/*`` and ``modules/**`` (a submodule
    named ``a/b`` lives in ``modules/a/b``; a submodule's own submodules in its ``modules/``).
    ``names``: ``gitdir``'s entries, if already read."""
    found = [gitdir]
    pending = [gitdir]
    while pending and len(found) < _MAX_INNER:
        current = pending.pop()
        held = names if current == gitdir and names is not None else names_in(current)
        if "worktrees" in held:
            found.extend(_subfolders(f"{current}/worktrees"))
        stack = _subfolders(f"{current}/modules") if "modules" in held else []
        while stack and len(found) < _MAX_INNER:
            candidate = stack.pop()
            if os.path.lexists(f"{candidate}/HEAD"):
                found.append(candidate)
                pending.append(candidate)
            else:
                stack.extend(_subfolders(candidate))
    return found


def _subfolders(folder: str) -> list[str]:
    for _attempt in range(2):
        try:
            with os.scandir(folder) as entries:
                return [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        except PermissionError:
            if not unlock.path(folder):
                return []
        except OSError:
            return []
    return []
