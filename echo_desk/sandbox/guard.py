"""After a sandboxed command, nothing it left that makes a program run code stays in place.

Before the command, the guard takes the workspace's inventory (``inventory``: every git folder's
hooks and configuration, the ``.git`` files, the protected list) and a fingerprint of each file
and folder in it, keeping the content of what is not read-only during the run. After the
command it takes the inventory again — a repository the command created is in it now — and
compares:

* created by the command → put aside (moved to Echo Desk's own folder, never run from there);
* changed → put aside, and the version from before put back;
* removed while its folder is still there → put back.

An empty folder runs nothing and is left alone (that is also what an in-use placeholder is).
Everything is reached through folders opened without following links (``dirwalk``): what the
command left is untrusted.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from echo_desk.sandbox import aside, repositories, unlock
from echo_desk.sandbox import inventory as inventory_module
from echo_desk.sandbox.dirwalk import Folders
from echo_desk.tools.planted import Change, Planted

#: Content kept to put a file back: larger files (or beyond the total) are watched, not kept.
MAX_KEPT_FILE = 1 << 20
MAX_KEPT_TOTAL = 32 << 20
#: Entries looked at under one watched folder (``.idea/`` can be large; a hostile tree is bounded).
MAX_TREE_ENTRIES = 5000
_RACY_NS = 2_000_000_000


class _Print(NamedTuple):
    """A fingerprint (a named tuple: two are made for every watched path of every command)."""

    kind: str  # "f" file, "d" folder, "l" link, "o" anything else
    dev: int
    ino: int
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    mode: int = 0
    link: str = ""
    #: Read-only for the whole run: what is inside was not looked at (it could not change).
    frozen: bool = False

    def same(self, other: _Print) -> bool:
        if self.kind != other.kind:
            return False
        if self.kind == "d":
            # Its times change with every entry (compared one by one); its mode does not: a
            # folder made unreadable (``chmod 100``) hides what is in it from a listing, not from git.
            return (self.dev, self.ino, self.mode) == (other.dev, other.ino, other.mode)
        if self.kind == "l":
            return self.link == other.link
        return self[:7] == other[:7]


def _print(st: os.stat_result, link: str = "", frozen: bool = False) -> _Print:
    mode = st.st_mode
    kind = "d" if stat.S_ISDIR(mode) else "f" if stat.S_ISREG(mode) else "l" if stat.S_ISLNK(mode) else "o"
    return _Print(kind, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, stat.S_IMODE(mode),
                  link, frozen)


Parts = tuple[str, ...]


@dataclass
class _State:
    prints: dict[Parts, _Print] = field(default_factory=dict)
    content: dict[Parts, bytes] = field(default_factory=dict)
    kept_bytes: int = 0
    #: Watched folders holding more than ``MAX_TREE_ENTRIES``: not everything in them was looked at.
    cut: set[Parts] = field(default_factory=set)


#: Content kept between commands, keyed by the file's full fingerprint: an unchanged hook is
#: read once, not before every command.
_content_cache: dict[tuple[str, _Print], bytes] = {}


class Guard:
    """Take with ``Guard.before(...)`` just before the command starts; ``after()`` once it ended."""

    def __init__(self, inventory: inventory_module.Inventory, *, home: Path, extra: tuple[str, ...],
                 writable: tuple[Path, ...], frozen: frozenset[str], put_aside: Path | None,
                 max_folders: int, environs: Sequence[Mapping[str, str]] | None = None) -> None:
        self.workspace = inventory.workspace
        self._base = str(self.workspace)
        self._prefix = self._base.rstrip("/") + "/"
        self._home, self._extra, self._writable = home, extra, writable
        self._frozen = {self._parts(p) for p in frozen if self._inside(p)}
        self._put_aside = put_aside
        self._max_folders = max_folders
        self._environs = environs
        self._taken_ns = time.time_ns()
        self._inventory = inventory
        #: Files with another name (a hard link) below a read-only mount, found before the command.
        self._linked: set[Parts] = set()
        self._before = self._state(inventory.watched, keep=True)
        #: The search after the command stopped at its bound (``after()`` sets it).
        self.cut_after = False

    @classmethod
    def before(cls, inventory: inventory_module.Inventory, *, home: Path, extra: tuple[str, ...] = (),
               writable: tuple[Path, ...] = (), frozen: frozenset[str] = frozenset(),
               put_aside: Path | None = None, max_folders: int = repositories.MAX_FOLDERS,
               environs: Sequence[Mapping[str, str]] | None = None) -> Guard:
        return cls(inventory, home=home, extra=extra, writable=writable, frozen=frozen, put_aside=put_aside,
                   max_folders=max_folders, environs=environs)

    def __getstate__(self) -> dict[str, object]:
        # Kept for a check owed across a restart (``sandbox.owed``): the environments as plain
        # values (``os.environ`` is this process's live mapping).
        state = self.__dict__.copy()
        if self._environs is not None:
            state["_environs"] = tuple(dict(e) for e in self._environs)
        return state

    def _parts(self, path: str) -> Parts:
        # String slicing, not Path.relative_to: this runs for every watched path twice a command.
        return tuple(path[len(self._prefix):].split("/")) if path != self._base else ()

    def _inside(self, path: str) -> bool:
        return path == self._base or path.startswith(self._prefix)

    def _state(self, watched: Iterable[inventory_module.Watched], *, keep: bool) -> _State:
        state = _State()
        for w in watched:
            if self._inside(w.path) and w.path != self._base:
                self._record(w.path, state, keep, w.hooks)
        return state

    def _record(self, root: str, state: _State, keep: bool, hooks: bool) -> None:
        """Fingerprints of ``root`` and everything under it. Plain paths: the walk never enters
        a link, and a link swapped in on the way can only make a fingerprint differ (then the
        put-aside and put-back, which act, go through ``dirwalk``)."""
        pending: list[tuple[str, bool]] = [(root, False)]
        looked = 0
        while pending and looked < MAX_TREE_ENTRIES:
            current, under_cover = pending.pop()
            looked += 1
            try:
                st = os.lstat(current)
            except OSError:
                continue
            parts = self._parts(current)
            mode = st.st_mode
            # A read-only mount covers a path, not the file: a file with another name (a hard
            # link: ``ln tools/pre-commit .git/hooks/pre-commit``) can be written through that
            # name, wherever the command may write. Such a file is never taken as unchangeable.
            # (After the command: one that had another name before is looked at again, its
            # other name removed or not.)
            linked = stat.S_ISREG(mode) and (st.st_nlink > 1 or parts in self._linked)
            frozen = (parts in self._frozen or under_cover) and not linked
            if under_cover and not linked and not stat.S_ISDIR(mode):
                continue  # below a read-only mount, and no other name: it cannot change
            link = ""
            if stat.S_ISLNK(mode):
                with contextlib.suppress(OSError):
                    link = os.readlink(current)
            if not under_cover or linked:
                state.prints[parts] = _print(st, link, frozen)
                if linked and keep:
                    self._linked.add(parts)
            if frozen:
                if stat.S_ISDIR(mode) and keep:
                    # Looked through only for files with another name (a few names: hooks,
                    # settings folders); nothing else below is recorded.
                    pending.extend((f"{current}/{name}", True) for name in repositories.names_in(current, st))
                elif stat.S_ISDIR(mode) and not under_cover:
                    # After the command, only those: no file there got another name meanwhile (a
                    # hard link is made on the file's own mount, and that one is read-only).
                    pending.extend(("/".join((self._base, *p)), True) for p in self._linked
                                   if len(p) > len(parts) and p[: len(parts)] == parts)
                continue
            if stat.S_ISDIR(mode):
                # git runs a hook only by its own name: a ``*.sample`` never runs (renaming one
                # into a hook is a new file, which is watched).
                samples = hooks and current == root
                pending.extend((f"{current}/{name}", False) for name in repositories.names_in(current, st)
                               if not (samples and name.endswith(".sample")))
            elif stat.S_ISREG(mode) and keep:
                self._keep(current, parts, state)
        if pending:
            state.cut.add(self._parts(root))

    def _keep(self, path: str, parts: Parts, state: _State) -> None:
        fingerprint = state.prints[parts]
        if fingerprint.size > MAX_KEPT_FILE or state.kept_bytes + fingerprint.size > MAX_KEPT_TOTAL:
            return
        key = (path, fingerprint)
        data = _content_cache.get(key)
        if data is None:
            data = aside.read_path(path, fingerprint)
            if data is None:
                return
            if len(_content_cache) > 20_000:
                _content_cache.clear()
            if fingerprint.ctime_ns < self._taken_ns - _RACY_NS:
                _content_cache[key] = data  # racy ones are read again next time
        state.content[parts] = data
        state.kept_bytes += len(data)

    def after(self, skip: frozenset[str] = frozenset()) -> tuple[Planted, ...]:
        """Compare with the snapshot, put aside and put back; what was found, in path order.
        ``skip``: placeholders another running command still has mounted (left alone: moving
        one would detach that command's read-only cover). A folder of the workspace the command
        made unreadable or unchangeable for its owner (``chmod 311 .git``: git still opens what is
        in it by name) is given its owner's bits back where the check needs it, and reported."""
        with unlock.unlocking([self._base], changed_since_ns=self._taken_ns - _RACY_NS) as opened:
            found = self._after(skip)
        moved = [tuple(p.path.split("/")) for p in found]
        extra = [Planted("/".join(parts) or ".", Change.CHANGED, put_back=True)
                 for parts in (self._parts(f) for f in opened.opened)
                 if not any(parts[: len(m)] == m for m in moved)]  # (not one inside what was moved out)
        return (*found, *extra)

    def _after(self, skip: frozenset[str]) -> tuple[Planted, ...]:
        stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
        inv = inventory_module.take(self.workspace, home=self._home, extra=self._extra, writable=self._writable,
                                    max_folders=self._max_folders, before=self._inventory,
                                    environs=self._environs)
        self.cut_after = inv.cut
        with Folders(self.workspace) as folders:
            ways = [*self._before.prints, *(self._parts(w.path) for w in inv.watched if self._inside(w.path))]
            detours = self._detours(folders, stamp, ways)
        # What was watched before is looked at again even if the search no longer finds it.
        paths = {w.path for w in inv.watched}
        now = self._state([*inv.watched, *(w for w in self._inventory.watched if w.path not in paths)], keep=False)
        before = self._before
        for parts in now.cut - before.cut:
            # Filled past what is looked at: a hook could hide among the rest. Changed as a whole
            # (moved aside, and the folder as it was put back).
            if parts in now.prints:
                now.prints[parts] = now.prints[parts]._replace(kind="o", ino=-1)
        found: list[Planted] = list(detours)
        done: list[Parts] = [self._parts(p) for p in skip if self._inside(p)]
        done += [tuple(p.path.split("/")) for p in detours]
        with Folders(self.workspace) as folders:
            for parts in sorted(set(before.prints) | set(now.prints)):
                if any(parts[: len(d)] == d for d in done):
                    continue
                old, new = before.prints.get(parts), now.prints.get(parts)
                if old is not None and new is not None and (
                        (old.same(new) and not self._racy_change(folders, parts, old))
                        or self._same_content(folders, parts, old, new)):
                    continue
                if new is not None and new.kind == "d" and old is None and _holds_nothing(now, parts):
                    continue  # an empty folder runs nothing (and an in-use placeholder is one)
                if new is None and old is not None and folders.fd(parts[:-1]) is None:
                    continue  # its folder went too: a repository removed as a whole is not rebuilt
                change = Change.CREATED if old is None else Change.REMOVED if new is None else Change.CHANGED
                kept = self._move_aside(folders, parts, stamp) if new is not None else ""
                still_there = new is not None and _still_there(folders, parts)
                put_back = old is not None and not still_there and self._put_back(folders, parts)
                if new is not None or put_back:
                    done.append(parts)
                found.append(Planted("/".join(parts), change, put_back, kept, still_there))
        return tuple(found)

    def _detours(self, folders: Folders, stamp: str, ways: Iterable[Parts]) -> list[Planted]:
        """A folder on the way to what is watched (``ways``: before the command, or found after
        it) that the command replaced with, or made as, a link (or anything else): ``mv vendor/lib
        node_modules/lib; ln -s ../node_modules/lib vendor/lib``, or ``ln -s node_modules/x
        local`` where the repository's settings include ``../local/extra.gitconfig``. Git goes
        through it to what the search does not look at, and nothing can be moved out through it
        (the guard never follows a link). The link is moved out instead. One older than the
        snapshot (its change time, which a program cannot set back) was there before the
        command: the person's own, left alone."""
        found: list[Planted] = []
        checked: set[Parts] = set()
        for parts in sorted(set(ways)):
            for i in range(1, len(parts)):
                prefix = parts[:i]
                if prefix in checked:
                    continue
                checked.add(prefix)
                if prefix in self._before.prints:
                    break  # watched itself: compared, and put back, as the rest is
                st = folders.lstat(prefix)
                if st is None or stat.S_ISDIR(st.st_mode) or st.st_ctime_ns < self._taken_ns - _RACY_NS:
                    continue
                # In place of a folder on the way to what was watched before, or new.
                was = any(p[:i] == prefix for p in self._before.prints)
                kept = self._move_aside(folders, prefix, stamp)
                found.append(Planted("/".join(prefix), Change.CHANGED if was else Change.CREATED, False, kept,
                                     _still_there(folders, prefix)))
                break
        return found

    def _racy_change(self, folders: Folders, parts: Parts, old: _Print) -> bool:
        """A file changed within the same clock tick as the snapshot keeps its fingerprint:
        compare its content (as git does with "racy" index entries)."""
        if old.kind != "f" or old.frozen or old.ctime_ns < self._taken_ns - _RACY_NS:
            return False
        kept = self._before.content.get(parts)
        return kept is None or aside.read(folders, parts, old) != kept

    def _same_content(self, folders: Folders, parts: Parts, old: _Print, new: _Print) -> bool:
        """Rewritten with the very same bytes and mode (``touch``, a tool saving unchanged)."""
        if old.kind != "f" or new.kind != "f" or old.mode != new.mode or old.size != new.size:
            return False
        kept = self._before.content.get(parts)
        return kept is not None and aside.read(folders, parts, new) == kept

    def _move_aside(self, folders: Folders, parts: Parts, stamp: str) -> str:
        """Move what is at ``parts`` out of the workspace (into the put-aside folder, private)."""
        parent = folders.fd(parts[:-1])
        if parent is None:
            return ""
        self._writable_at(parent, parts)
        folders.forget(parts)
        if self._put_aside is None:
            aside.remove(parent, parts[-1])
            return ""
        destination = self._put_aside / stamp / self.workspace.name / Path(*parts)
        while os.path.lexists(destination):  # never over something kept before
            destination = destination.with_name(f"{destination.name}.{secrets.token_hex(2)}")
        return str(destination) if aside.move_out(parent, parts[-1], destination, self._put_aside) else ""

    def _writable_at(self, parent: int, parts: Parts) -> None:
        """Before moving ``parts`` out: its folder (and, a folder, itself: renaming one rewrites
        its ``..``) must let its owner change them."""
        unlock.held(parent, "/".join((self._base, *parts[:-1])))
        with contextlib.suppress(OSError):
            if stat.S_ISDIR(os.stat(parts[-1], dir_fd=parent, follow_symlinks=False).st_mode):
                unlock.at(parent, parts[-1], "/".join((self._base, *parts)))

    def _put_back(self, folders: Folders, parts: Parts) -> bool:
        """Recreate ``parts`` (and, for a folder, everything under it) as it was before."""
        old = self._before.prints.get(parts)
        if old is None or old.frozen:
            return False
        parent = folders.fd(parts[:-1])
        if parent is None:
            return False
        unlock.held(parent, "/".join((self._base, *parts[:-1])))
        name = parts[-1]
        try:
            if old.kind == "d":
                os.mkdir(name, aside.PRIVATE_DIR, dir_fd=parent)
                inner = sorted(p for p in self._before.prints if p[: len(parts)] == parts and len(p) == len(parts) + 1)
                back = all([self._put_back(folders, p) for p in inner])
                made = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
                try:
                    os.fchmod(made, old.mode)  # last: a folder without write permission is filled first
                finally:
                    os.close(made)
                return back
            if old.kind == "l":
                os.symlink(old.link, name, dir_fd=parent)
                return True
            data = self._before.content.get(parts)
            if old.kind != "f" or data is None:
                return False
            aside.write_new(parent, name, data, old.mode)
            return True
        except OSError:
            return False


def _holds_nothing(state: _State, parts: Parts) -> bool:
    return all(p == parts or state.prints[p].kind == "d" for p in state.prints if p[: len(parts)] == parts)


def _still_there(folders: Folders, parts: Parts) -> bool:
    """After a move aside: whether something is still at ``parts`` (a move or removal refused
    for a reason the guard does not foresee). Said as "still there" when it cannot be told."""
    parent = folders.fd(parts[:-1])
    if parent is None:
        return True
    try:
        os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True
