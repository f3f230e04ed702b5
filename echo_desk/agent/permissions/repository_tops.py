"""The folders a git or hg command reading its repository as a whole reads (``git_whole_reads``,
``hg_whole_reads``): the top of the repository it finds from the folder it runs in, found as that
program finds it, and the worktree whose files that repository's history holds.

Only git's own marker counts for git and hg's for hg, and only one git takes. git passes over a
``.git`` that is not a repository to it (an empty folder, one whose ``HEAD`` it refuses, a
dangling link) and looks further up; it takes a ``.git`` file (``gitdir: ../.git``) or a link to
another repository's folder, whose history is of that repository's worktree. With ``out/.git``
an empty folder (the agent may make one wherever it writes), ``git log -p`` run in out/ printed
src/main.py's ``KEY=secret`` from the workspace's repository; with ``out/.git`` holding
``gitdir: ../.git`` too (git 2.39, bash and dash, s281), while the engine took out/ for the top.
hg takes any ``.hg`` folder, and a share's history is its source's (``.hg/sharedpath``).

Each ``.git`` on the way counts, up to and with the first git surely takes; a repository folder
whose worktree is not known here counts as ``/``: one more ask, never a missed deny.
"""

from __future__ import annotations

import os
from pathlib import Path

from echo_desk.agent.permissions import hg_config
from echo_desk.agent.permissions.git_index import git_dir_of, repository_roots

__all__ = ["repository_tops"]

_ANYWHERE = Path("/")


def repository_tops(folder: Path, program: str | None) -> list[Path]:
    """The folders whose files ``program`` (``git`` or ``hg``) run in ``folder`` reads when it
    reads its repository as a whole: ``folder`` itself outside any repository."""
    if program == "hg":
        return _hg_tops(folder)
    found: list[Path] = []
    for root in repository_roots(folder):  # (git's own walk: the last is one git surely takes)
        found.append(root)
        marker = root / ".git"
        if marker.is_file():  # (git takes it, or stops at one it cannot read)
            git_dir = git_dir_of(root)
            found.append(_ANYWHERE if git_dir is None else _worktree_of(git_dir))
        elif marker.is_dir():
            found.append(_worktree_of(marker))
    return list(dict.fromkeys(found)) or [folder]


def _hg_tops(folder: Path) -> list[Path]:
    for candidate in (folder, *folder.parents):
        if (candidate / ".hg").is_dir():
            sources, unknown = hg_config.shared_sources([candidate], [folder])
            return [candidate, *(source.parent for source in sources), *([_ANYWHERE] if unknown else [])]
    return [folder]


def _worktree_of(git_dir: Path) -> Path:
    """The worktree whose files the history of the repository folder ``git_dir`` holds: the
    folder above a ``.git`` (a linked worktree's: above its shared folder's), else not known."""
    real = Path(os.path.realpath(git_dir))
    try:
        common = (real / "commondir").read_text(encoding="utf-8").strip()
        real = Path(os.path.realpath(real / common))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return _ANYWHERE
    return real.parent if real.name == ".git" else _ANYWHERE
