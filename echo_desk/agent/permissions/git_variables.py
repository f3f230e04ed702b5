"""The variables that move where git works, as its options do (s214): ``GIT_DIR`` is
``--git-dir``, ``GIT_WORK_TREE`` is ``--work-tree`` (an option given wins, as git's own
``--git-dir`` sets ``GIT_DIR``), ``GIT_COMMON_DIR`` is the folder whose settings and hooks a
repository shares, and ``GIT_INDEX_FILE``, ``GIT_OBJECT_DIRECTORY`` and
``GIT_ALTERNATE_OBJECT_DIRECTORIES`` name the index and the object folders git reads and writes.
Each is relative to the folder git works in (where ``-C`` leads). Proven with git 2.39 under bash
and dash: ``env GIT_WORK_TREE=../other git checkout -f -- a.txt`` overwrote the file there,
``env GIT_INDEX_FILE=../other/idx git add -A`` wrote the index there, ``env GIT_DIR=../other/.git
git log`` read that repository.

They are read with ``line_environment``: the environment the command gets, with what the line gives
git on top (``env GIT_DIR=… git``). A value whose folder is not known here (a leading ``~``,
which bash expands after ``=`` and dash does not; a quoted alternate) is ``unknown``: the
engine asks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from echo_desk.agent.permissions import line_environment

__all__ = ["Moved", "moved"]


@dataclass(frozen=True)
class Moved:
    """What the environment says about where git works (``None``: not set)."""

    git_dir: str | None = None
    work_tree: str | None = None
    common_dir: str | None = None
    #: The index file and the object folders it names.
    data: tuple[str, ...] = ()
    unknown: bool = False
    #: The index file it names (``GIT_INDEX_FILE``), relative to the top of the worktree.
    index: str | None = None


def moved() -> Moved:
    """Where the environment of the command being judged moves git (see the module)."""
    named = {name: line_environment.get(name) for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR",
                                                             "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")}
    alternates = [a for a in line_environment.get("GIT_ALTERNATE_OBJECT_DIRECTORIES").split(os.pathsep) if a]
    values = [*named.values(), *alternates]
    data = tuple(v for v in (named["GIT_INDEX_FILE"], named["GIT_OBJECT_DIRECTORY"], *alternates) if v)
    return Moved(git_dir=named["GIT_DIR"] or None, work_tree=named["GIT_WORK_TREE"] or None,
                 common_dir=named["GIT_COMMON_DIR"] or None, data=data, index=named["GIT_INDEX_FILE"] or None,
                 # (git reads an alternate starting with a double quote as a C-quoted path)
                 unknown=any(v.startswith("~") for v in values) or any(a.startswith('"') for a in alternates))
