"""The submodules (gitlinks) a git repository's index holds. git's worktree commands (``git
status``, ``git diff``, ``git describe --dirty``…) look into every submodule whose folder holds
a repository: they run git there, which reads that repository's own settings
(``core.fsmonitor`` runs a command). A gitlink the repository ships, in a folder the write rules
open to the agent (``out/sub``), lets the agent plant ``out/sub/.git`` and have ``git status``
run what its settings name.

The index is the one git reads: the file ``GIT_INDEX_FILE`` names where the command's environment
sets it (relative to the top of the worktree), else the repository's own. An index named there
that the agent wrote, with a gitlink at ``out/sub``, made ``env GIT_INDEX_FILE=out/idx git
status`` (and ``git add -A``) run the ``core.fsmonitor`` of the agent's ``out/sub/.git/config``
while the repository's index held no submodule (git 2.39, under bash and dash, s270).

The index is read as git writes it (versions 2-4, SHA-1 or SHA-256 names); an index this
reader cannot follow (a split index, a format it does not know, a read error) gives ``None``:
any folder may then be a submodule.
"""

from __future__ import annotations

import functools
import os
import re
import struct
from pathlib import Path

from echo_desk.agent.permissions import git_variables

#: A gitlink's mode (0o160000) as the index stores it: big-endian, four bytes.
_GITLINK = struct.pack(">I", 0o160000)
#: A ``HEAD`` git takes (``validate_headref``): a symbolic ref into refs/, or an object name.
_HEAD = re.compile(rb"ref:\s*refs/|[0-9a-f]{40}\s*$|[0-9a-f]{64}\s*$")
#: An index larger than this is not read (``None``: any folder may be a submodule).
_LIMIT = 64 * 1024 * 1024


def repository_roots(folder: Path) -> list[Path]:
    """The worktrees git run in ``folder`` may work on, nearest first: each folder, ``folder``
    itself or above, with a ``.git``, up to the first git surely takes (a ``.git`` file, or a
    repository folder: ``is_repository``). git passes over a ``.git`` that is not a repository to
    it (an empty folder, a dangling link) and looks further up: with ``out/.git`` an empty
    folder, ``git reset --hard`` run in out/ put back the workspace's files and ``git commit``
    ran its hooks (git 2.39, s296). One it may yet take counts too: the line may fill it."""
    found: list[Path] = []
    for candidate in (folder, *folder.parents):
        marker = candidate / ".git"
        if not os.path.lexists(marker):
            continue
        found.append(candidate)
        if marker.is_file() or (marker.is_dir() and is_repository(marker)):
            return found
    return found


def repository_root(folder: Path) -> Path | None:
    """The worktree git run in ``folder`` works on as the folders stand (``repository_roots``:
    the last; callers that need it to be the only one check ``repository_tops``)."""
    roots = repository_roots(folder)
    return roots[-1] if roots else None


def is_repository(git_dir: Path) -> bool:
    """Whether git surely takes ``git_dir`` for a repository folder (``is_git_directory``): its
    objects and refs folders, and a ``HEAD`` it accepts."""
    if not ((git_dir / "objects").is_dir() and (git_dir / "refs").is_dir()):
        return False
    head = git_dir / "HEAD"
    if head.is_symlink():
        return os.readlink(head).startswith("refs/")
    try:
        with open(head, "rb") as handle:
            return _HEAD.match(handle.read(256)) is not None
    except OSError:
        return False


def gitlinks(root: Path, git_dir: Path | None = None) -> tuple[str, ...] | None:
    """The paths (relative to ``root``, ``/``-separated) of the gitlinks in the index of the
    repository whose worktree is ``root`` (its repository folder ``git_dir``, else the one
    ``root`` holds); ``None`` when the index cannot be read."""
    git_dir = git_dir or git_dir_of(root)
    if git_dir is None:
        return None
    named = git_variables.moved().index
    if named is not None and named.startswith("~"):
        return None  # (bash expands it after `=`, dash does not: not known here)
    index = Path(os.path.normpath(root / named)) if named is not None else git_dir / "index"
    try:
        stat = index.stat()
    except FileNotFoundError:
        return ()
    except OSError:
        return None
    if stat.st_size > _LIMIT:
        return None
    return _read(str(index), stat.st_mtime_ns, stat.st_size, stat.st_ino, _hash_size(git_dir))


def git_dir_of(root: Path) -> Path | None:
    """The repository folder of the worktree ``root``: ``.git``, or where a ``.git`` file's
    ``gitdir:`` line points."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            return Path(os.path.normpath(root / line.partition(":")[2].strip()))
    return None


def _hash_size(git_dir: Path) -> int | None:
    """20 (SHA-1) or 32 (SHA-256) bytes per object name; ``None`` when not known."""
    try:
        if (git_dir / "commondir").exists():  # a linked worktree: the common folder's settings
            common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
            git_dir = Path(os.path.normpath(git_dir / common))
    except (OSError, UnicodeDecodeError):
        return None
    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
    except FileNotFoundError:
        return 20
    except OSError:
        return None
    if "objectformat" in config:
        return 32 if "sha256" in config else None
    return 20


@functools.lru_cache(maxsize=16)
def _read(index: str, mtime_ns: int, size: int, inode: int, hash_size: int | None) -> tuple[str, ...] | None:
    """The gitlinks of the index file ``index`` (its stat fields key the cache)."""
    del mtime_ns, size, inode
    try:
        with open(index, "rb") as handle:
            data = handle.read(_LIMIT + 1)
    except OSError:
        return None
    if data[:4] != b"DIRC":
        return None
    if _GITLINK not in data and b"link" not in data:  # no entry is a gitlink, none is elsewhere
        return ()
    if hash_size is None:
        return None
    try:
        return _parse(data, hash_size)
    except (struct.error, IndexError, ValueError, UnicodeDecodeError):
        return None


def _parse(data: bytes, hash_size: int) -> tuple[str, ...] | None:
    signature, version, count = struct.unpack_from(">4sII", data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    found: list[str] = []
    offset, previous = 12, b""
    fixed = 40 + hash_size  # stat fields and the object name
    for _ in range(count):
        start = offset
        mode = struct.unpack_from(">I", data, start + 24)[0]
        flags = struct.unpack_from(">H", data, start + fixed)[0]
        offset = start + fixed + 2
        if flags & 0x4000:
            if version < 3:
                return None
            offset += 2
        if version == 4:
            strip, offset = _varint(data, offset)
            end = data.index(b"\0", offset)
            if strip > len(previous):
                return None
            path = previous[:len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            end = data.index(b"\0", offset)
            path = data[offset:end]
            offset = start + ((offset - start + len(path) + 8) & ~7)
        previous = path
        if mode == 0o160000:
            found.append(path.decode("utf-8"))
    # The extensions: a split index keeps most entries in another file.
    while offset + 8 <= len(data) - hash_size:
        name, length = struct.unpack_from(">4sI", data, offset)
        if name == b"link":
            return None
        offset += 8 + length
    return tuple(found)


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset varint (``decode_varint``): the value and the offset after it."""
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset
