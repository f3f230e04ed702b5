"""Where the home folder's protected and hidden places land through links, in a workspace.

Many people keep their settings in a dotfiles folder and link them into the home folder
(``~/.gitconfig -> ~/dotfiles/gitconfig``, ``~/.config -> ~/dotfiles/config``, GNU stow's
``~/.ssh/config -> ~/dotfiles/ssh/config``). With that folder as the workspace, the file git,
ssh or the editor reads is an ordinary file of the workspace under another name: it is protected
(or hidden) there as the place itself is. A link is followed wherever it is on the way: the place
itself, a folder above it, a link to a link, absolute or relative; and one below the place when
the place is a folder (stow links files one by one into a real folder). A link whose target does
not exist yet lands too: the command could create what it names.
"""

from __future__ import annotations

import collections
import os
import stat
from collections.abc import Iterable
from typing import NamedTuple

from echo_desk.sandbox import repositories

#: Entries looked at below one place for links (breadth first: stow's are near the top; a
#: browser profile has thousands). Links further down are not looked for.
MAX_ENTRIES_PER_PLACE = 100


class Landing(NamedTuple):
    """A real path in the workspace a place reaches through a link, and the place's message id."""

    path: str
    exists: bool
    why: str


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


class Finder:
    """The landings of many places of one home folder in one workspace (``base``, real), with
    the folders' listings and links resolved once each."""

    def __init__(self, home: str, base: str) -> None:
        self.home = os.path.realpath(home)  # (so that only a link below it tells a path from its real one)
        self.base = base
        self._real: dict[str, str] = {}

    def landings(self, relative: str, why: str) -> list[Landing]:
        """Where ``~/relative`` (or what is below it) leads into the workspace through a link."""
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
            return self._below(folder, why)
        place = f"{self.home}/{relative}"
        real = os.path.realpath(place)
        if _inside(real, self.base) and real != self.base:
            return [Landing(real, os.path.lexists(real), why)]
        if reached == len(parts) and os.path.isdir(real):
            return self._below(real, why)  # a folder elsewhere: links in it may land here
        return []

    def _realpath(self, path: str) -> str:
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = os.path.realpath(path)
        return found

    def _below(self, folder: str, why: str) -> list[Landing]:
        """The links below a real ``folder`` that land in the workspace (bounded, breadth first)."""
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode) or (_inside(self.base, folder) and folder != self.base):
                return []  # (a folder holding the workspace is not walked: that would be the workspace)
        except OSError:
            return []
        found: list[Landing] = []
        pending = collections.deque([folder])
        looked = 0
        while pending and looked < MAX_ENTRIES_PER_PLACE:
            current = pending.popleft()
            for name in sorted(repositories.names_in(current)):
                looked += 1
                if looked > MAX_ENTRIES_PER_PLACE:
                    break
                path = f"{current}/{name}"
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISDIR(mode):
                    pending.append(path)
                elif stat.S_ISLNK(mode):
                    real = os.path.realpath(path)
                    if _inside(real, self.base) and real != self.base:
                        found.append(Landing(real, os.path.lexists(real), why))
        return found


def landings(home: str, base: str, places: Iterable[tuple[str, str]]) -> list[Landing]:
    """Where each of ``places`` (``(path relative to the home folder, message id)``) lands in
    the workspace ``base`` through a link."""
    finder = Finder(home, base)
    return [landing for relative, why in places for landing in finder.landings(relative, why)]
