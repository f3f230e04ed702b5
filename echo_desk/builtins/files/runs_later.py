"""For the file tools: what the sandbox watches as making git run code later, beyond ``.git/``
and the fixed list (``sandbox.runs_code``) — the hooks folder a repository's settings name, a
settings file they include, a folder that is a git folder itself (its ``config``, ``hooks/``…), a
module at the top under the name of one of Python's own (``sandbox.shadows``) — and a write that
would make a folder a git folder. Writing one always asks, as for ``.git/``.

The same inventory as the sandbox's (``sandbox.inventory``), so the rule has one definition.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.common import fs
from echo_desk.i18n import N_
from echo_desk.sandbox import inventory, shadows

MAKES_A_GIT_FOLDER = N_("it makes this folder a git folder: git run in it would use that folder's hooks and "
                        "settings")
#: What makes git take a folder for a git folder (see ``sandbox.repositories``).
_GITDIR_MARKS = frozenset({"HEAD", "objects", "refs", "commondir"})


@dataclass(frozen=True)
class Found:
    """The watched path as the person reads it (relative, a folder ending with ``/``) and why."""

    shown: str
    why: str


def watched_in(root: Path, protected: Sequence[str]) -> tuple[inventory.Watched, ...]:
    """What the sandbox watches in the workspace ``root`` (take it once for many targets)."""
    return inventory.take(root, home=Path.home(), extra=protected).watched


def covering(target: fs.Resolved, watched: Sequence[inventory.Watched]) -> Found | None:
    """What makes writing ``target`` change what git runs later, or ``None``."""
    path = str(target.path)
    for w in watched:
        if path == w.path or (w.folder and path.startswith(w.path + "/")):
            return Found(_shown(target.root, w.path, w.folder), w.why)
        if w.pattern and os.path.dirname(path) == os.path.dirname(w.path) and fnmatch.fnmatchcase(
                os.path.basename(path), w.pattern):  # (one that does not exist yet: ``~/.bashrc.$(hostname)``)
            return Found(_shown(target.root, path, w.folder), w.why)
    if shadows.covers(target.parts):  # (watched only once it exists: a new one asks too)
        return Found(_shown(target.root, path, False), shadows.WHY)
    if target.path.name in _GITDIR_MARKS:
        folder = target.path.parent
        try:
            names = set(os.listdir(folder)) | {target.path.name}
        except OSError:
            names = {target.path.name}
        if "HEAD" in names and ("commondir" in names or {"objects", "refs"} <= names):
            return Found(_shown(target.root, str(folder), True), MAKES_A_GIT_FOLDER)
    return None


def _shown(root: Path, path: str, folder: bool) -> str:
    relative = os.path.relpath(path, root)
    return relative + "/" if folder else relative
