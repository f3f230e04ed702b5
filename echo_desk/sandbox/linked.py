"""Where the home folder's protected and hidden places land through links, in a workspace.

Many people keep their settings in a dotfiles folder and link them into the home folder
(``~/.gitconfig -> ~/dotfiles/gitconfig``, ``~/.config -> ~/dotfiles/config``, GNU stow's
``~/.ssh/config -> ~/dotfiles/ssh/config``). With that folder as the workspace, the file git,
ssh or the editor reads is an ordinary file of the workspace under another name: it is protected
(or hidden) there as the place itself is. A link is followed wherever it is on the way: the place
itself, a folder above it, a link to a link, absolute or relative; and one below the place when
the place is a folder (stow links files one by one into a real folder). A link whose target does
not exist yet lands too: the command could create what it names.

A hidden place's link below it that leads outside the workspace counts as well (``below`` with
``whole``): the rest of the disk is readable, so a key kept in ``/srv/dotfiles`` and linked into
``~/.ssh`` is hidden by its real name too (``Finder._followed_outside``). What such a link leads to is
walked for links in turn (``~/.ssh/keys -> /srv/keys`` holding ``id -> /srv/other/id_real``): the
real key is hidden too, however many linked folders lead to it, each folder once (links that lead
round in a circle end). A protected place's link to a folder outside the workspace is walked the
same way (``~/.vim/plugin/shared -> /srv/vim`` holding ``x.vim -> ~/dotfiles/x.vim``: Vim runs
that file of the workspace), and so is a place's folder that lands in the workspace (read-only, or
hidden, there; what its links lead to is not). A protected place's link to the workspace itself or to a folder holding it
(``~/.vim -> ~/project``, ``~/.vim/plugin/x -> ~``, ``-> /``) is not a landing: every file of the
workspace would be code the program runs, and only the whole workspace read-only would keep it
so. It is kept in ``Finder.holds_workspace`` and the command refused (``launch``). That walk has bounds of its own (``MAX_FOLLOWED``):
past them what the links lead to is unknown, so the command is refused (``Finder.too_far``,
``too_far_protected``), not run with it readable or writable.

The same holds for a place a variable moves out of the home folder (``moved``:
``GNUPGHOME=/srv/keys``, ``XDG_CONFIG_HOME=~/cfg``): its folder is walked for links as the home
folder's is (``Finder`` rooted there).

The walk below a folder has a bound (``MAX_ENTRIES_PER_PLACE``): a tool's folder holds far
more (measured on a developer's machine: ``~/.pyenv`` 130,000 entries in 12,000 folders, 66 ms to
walk even with every listing kept; ``~/.rustup`` 120,000, 28 ms), and this runs twice a command. A
walk stopped at it is not silent: ``Finder.cut`` names the place, and the command's result keeps
it (``links_cut``). Failing closed there (refusing the command, or making the whole workspace
read-only and hidden) would stop every command of anyone with such a folder.
"""

from __future__ import annotations

import collections
import os
import stat
import time
from typing import NamedTuple

from echo_desk.sandbox import repositories

#: Entries looked at below one place for links (breadth first: stow's are near the top; a
#: browser profile has thousands). Past it the place is named in ``Finder.cut``.
MAX_ENTRIES_PER_PLACE = 2_000
#: Folders a place's links lead to that are walked for links in turn, per place (each walked as
#: a place is, with its own ``MAX_ENTRIES_PER_PLACE``), and the entries looked at in them all. A
#: person's keys are one or two linked folders away; a plugin manager links one folder a plugin
#: into the editor's (measured: 30 plugins of 100 entries each, linked, cost 3 ms to follow). Past
#: either bound the place is named in ``Finder.too_far`` (``too_far_protected``) and the command
#: refused: what lies further on is not known.
MAX_FOLLOWED = 256
MAX_ENTRIES_FOLLOWED = 20_000
#: A listing read less than this after its folder last changed is read again next time (as
#: ``repositories``: a change within the same tick of the clock leaves the change time as it was).
_RACY_NS = 2_000_000_000
_MAX_CACHED = 50_000


#: Folders the sandbox gives a command its own of: a link into the real one leads nowhere it sees.
SANDBOX_OWN = ("/dev", "/proc", "/tmp")
#: The system's programs and libraries (real paths: ``/bin`` is ``/usr/bin`` on most systems).
_PROGRAMS = tuple(dict.fromkeys(os.path.realpath(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")))


class Landing(NamedTuple):
    """A real path a place reaches through a link (in the workspace; for a hidden place's link
    below it, anywhere: ``Finder.below``), and the place's message id. ``link``: the path that
    leads there (the link, or the place with a link on its way), to name it to the person."""

    path: str
    exists: bool
    why: str
    link: str = ""


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


class _Listing(NamedTuple):
    dev: int
    ino: int
    ctime_ns: int
    read_ns: int
    entries: int
    folders: tuple[str, ...]
    links: tuple[str, ...]


#: Each folder's subfolders and links, kept until it changes (a link is made or removed only by
#: changing its folder): the folders walked are outside the sandbox's reach, and mostly the same
#: from one command to the next.
_listings: dict[str, _Listing] = {}


def _listing(folder: str) -> _Listing | None:
    """``folder``'s subfolders and links, sorted (breadth first, in the same order each time)."""
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    known = _listings.get(folder)
    if (known is not None and known.ino == st.st_ino and known.ctime_ns == st.st_ctime_ns
            and known.dev == st.st_dev and known.read_ns - st.st_ctime_ns > _RACY_NS):
        return known
    folders: list[str] = []
    links: list[str] = []
    entries = 0
    try:
        with os.scandir(folder) as listing:
            for entry in listing:  # (the type comes with the listing: no lstat an entry)
                entries += 1
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                elif entry.is_symlink():
                    links.append(entry.name)
    except OSError:
        return None
    if len(_listings) >= _MAX_CACHED:
        _listings.clear()
    fresh = _listings[folder] = _Listing(st.st_dev, st.st_ino, st.st_ctime_ns, time.time_ns(), entries,
                                         tuple(sorted(folders)), tuple(sorted(links)))
    return fresh


class Finder:
    """The landings of many places of one home folder in one workspace (``base``, real), with
    the folders' listings and links resolved once each. ``home`` may be any folder the places
    are relative to (a moved place's: ``below``)."""

    def __init__(self, home: str, base: str, *, shared: Finder | None = None, programs_in_view: bool = False) -> None:
        self.home = os.path.realpath(home)  # (so that only a link below it tells a path from its real one)
        self.base = base
        #: A hidden place's links to the system's programs and libraries are left in view (a
        #: folder the person hid holding a virtual environment: ``bin/python -> /usr/bin/python3``
        #: would hide Python from every command); they are the packages', no one's secret.
        self.programs_in_view = programs_in_view
        self._real: dict[str, str] = {}
        #: The folders whose walk stopped at ``MAX_ENTRIES_PER_PLACE``: links further down were
        #: not followed (``shared``: another finder whose lists this one adds to).
        self.cut: list[str] = [] if shared is None else shared.cut
        #: The hidden places whose links led further than ``MAX_FOLLOWED`` folders allow: what
        #: lies further on was not looked at (the command is refused: ``launch``).
        self.too_far: list[str] = [] if shared is None else shared.too_far
        #: The same for the protected places: what lies further on could not be kept read-only.
        self.too_far_protected: list[str] = [] if shared is None else shared.too_far_protected
        #: A protected place's links (the place itself, or one below it) to the workspace itself or
        #: a folder holding it, with where they lead: every file of the workspace is then one the
        #: program may run, which cannot be kept read-only without the whole workspace (``launch``
        #: refuses the command). A link into a subfolder lands (that subfolder is kept read-only).
        self.holds_workspace: list[tuple[str, str]] = [] if shared is None else shared.holds_workspace
        #: A hidden place's links below it to ``/`` or a folder holding the home folder, with where
        #: they lead: hiding that would hide every command's programs or settings, and leaving it in
        #: view shows whatever the place reaches through them (``launch`` refuses the command).
        self.hidden_holds_home: list[tuple[str, str]] = [] if shared is None else shared.hidden_holds_home

    def _lands(self, real: str, whole: bool) -> bool:
        """Whether ``real`` is in the workspace; the workspace itself only when ``whole``."""
        return _inside(real, self.base) and (whole or real != self.base)

    def _followed_outside(self, real: str) -> bool:
        """Whether a place's link to ``real``, outside the workspace, is followed. A hidden
        place's is hidden with it: the rest of the disk is readable (read-only), so a key kept in
        ``/srv/dotfiles`` or ``~/dotfiles`` (not opened) and linked into ``~/.ssh`` would be read
        there by its real name. A protected place's link to a folder there is walked for links in
        turn (``~/.vim/plugin/shared -> /srv/vim`` holding ``x.vim -> ~/dotfiles/x.vim``: Vim
        runs the workspace's file). Not ``/`` or a folder holding the home folder (a hidden place's
        link there is refused: ``hidden_holds_home``), nor the sandbox's own ``/dev``, ``/proc`` and
        ``/tmp`` (``known_hosts -> /dev/null`` is common; the real ones are not what the command
        sees). A hidden place's link to a folder holding the workspace is hidden around it (what
        else the place reaches there was readable before); a protected place's is refused
        (``holds_workspace``)."""
        if _inside(self.home, real):
            return False
        return not any(_inside(real, own) for own in SANDBOX_OWN)

    def landings(self, relative: str, why: str, *, whole: bool = False) -> list[Landing]:
        """Where ``~/relative`` (or what is below it) leads into the workspace through a link.
        ``whole``: a link to the workspace itself lands too (a hidden place's: the keys it
        names are then the workspace's files, which cannot be hidden from a command run in it)."""
        parts = relative.split("/")
        folder = self.home
        reached = 0
        for part in parts:
            if part not in repositories.names_in(folder):
                break
            folder = f"{folder}/{part}"
            reached += 1
        if reached == 0:
            return []  # nothing of it in the home folder (most places): no link on the way
        # A link on the way to what exists of it (each prefix resolved once: ``~/.config``'s
        # sixty entries share it): the whole path leads where the links say, existing or not.
        if self._realpath(folder) == folder:
            if reached < len(parts):
                return []  # a real folder without the rest: nothing there to follow
            return self.below(folder, why, whole=whole)
        place = f"{self.home}/{relative}"
        real = os.path.realpath(place)
        if not whole and _inside(self.base, real):
            self._hold(place, real)
            return []
        if self._lands(real, whole):
            # (A folder: read-only or hidden where it lands, but its links lead on.)
            return [Landing(real, os.path.lexists(real), why, place), *self.below(real, why, whole=whole)]
        if reached == len(parts) and os.path.isdir(real):
            return self.below(real, why, whole=whole)  # a folder elsewhere: links in it may land here
        return []

    def _hold(self, link: str, real: str) -> None:
        if (link, real) not in self.holds_workspace:
            self.holds_workspace.append((link, real))

    def _realpath(self, path: str) -> str:
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = os.path.realpath(path)
        return found

    def below(self, folder: str, why: str, *, whole: bool = False) -> list[Landing]:
        """The links below a real ``folder`` that land in the workspace (bounded, breadth first;
        ``whole``: as for ``landings``, and a hidden place's: its links landing outside the
        workspace count too, ``_followed_outside``). The folders they land on, and a protected
        place's folders outside the workspace, are walked in turn, within ``MAX_FOLLOWED`` and
        ``MAX_ENTRIES_FOLLOWED``: past them the place is named in ``too_far`` (``too_far_protected``)."""
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode) or (
                    not whole and _inside(self.base, folder) and folder != self.base):
                # (A protected folder holding the workspace is left: its links lead to its files,
                # and the workspace is the person's to edit. A hidden one is walked around the
                # workspace: ``GNUPGHOME=~`` with ``~/project`` open, ``~/private-keys-v1.d/key``
                # a link to ``/srv/keys/key``, which the command could read by that name.)
                return []
        except OSError:
            return []
        found: list[Landing] = []
        walked = [folder]
        roots = collections.deque(walked)
        too_far = self.too_far if whole else self.too_far_protected
        looked = 0  # (in the folders followed: the place's own walk has its own bound)
        while roots:
            root = roots.popleft()
            landings, onward, entries = self._walk(root, why, whole)
            found += landings
            looked += entries if root != folder else 0
            for real in (*(landing.path for landing in landings), *onward):
                if not self._followed(real, walked):
                    continue
                if len(walked) > MAX_FOLLOWED or looked > MAX_ENTRIES_FOLLOWED:
                    if folder not in too_far:
                        too_far.append(folder)
                    return found
                walked.append(real)
                roots.append(real)
        return found

    def _followed(self, real: str, walked: list[str]) -> bool:
        """Whether a landing (or a protected place's folder outside the workspace) ``real`` is
        walked for links in turn: a folder other than the workspace itself not below one walked
        already (a circle of links, or a link to a folder the walk reaches anyway). A landing in
        the workspace too: it is read-only (or hidden), what its links lead to is not. What
        ``_followed_outside`` leaves in view is never walked."""
        return (not _inside(self.base, real) and not any(_inside(real, done) for done in walked)
                and os.path.isdir(real))

    def _walk(self, folder: str, why: str, whole: bool) -> tuple[list[Landing], list[str], int]:
        """The links below the real folder ``folder`` that land (``below``), one folder's walk;
        and, not ``whole``, the folders outside the workspace its links lead to (walked in turn);
        and how many entries were looked at."""
        found: list[Landing] = []
        onward: list[str] = []
        pending = collections.deque([folder])
        looked = 0
        while pending:
            current = pending.popleft()
            listing = _listing(current)
            if listing is None:
                continue
            looked += listing.entries
            for name in listing.links:
                link = f"{current}/{name}"
                real = self._realpath(link)
                if not whole and _inside(self.base, real):
                    self._hold(link, real)
                elif whole and _inside(self.home, real) and not any(_inside(real, own) for own in SANDBOX_OWN):
                    if (link, real) not in self.hidden_holds_home:
                        self.hidden_holds_home.append((link, real))
                elif self.programs_in_view and any(_inside(real, folder) for folder in _PROGRAMS):
                    continue
                elif self._lands(real, whole) or (whole and self._followed_outside(real)):
                    found.append(Landing(real, os.path.lexists(real), why, link))
                elif not whole and self._followed_outside(real):
                    onward.append(real)
            # (Not into the workspace from a folder holding it: its files are the command's own.)
            pending.extend(path for name in listing.folders
                           if (path := f"{current}/{name}") != self.base or folder == self.base)
            if pending and looked >= MAX_ENTRIES_PER_PLACE:
                if folder not in self.cut:
                    self.cut.append(folder)
                break
        return found, onward, looked
