"""The folders ``git submodule foreach LINE`` runs LINE in: the worktree folder of each
submodule of the repository's index (git's ``module_list``: every gitlink, whichever folder of
the worktree the command runs from; one whose folder holds no repository is skipped, and
counts here all the same), and with ``--recursive`` those of each submodule's own index too.
Read from the folder the line runs in or the one ``-C`` leads to. Not known here (``None``:
the line is judged as run in a folder not known, ``Inner.elsewhere``): a ``--git-dir`` or
``--work-tree``, a folder only known when the line runs, an index this reader cannot follow.
(The submodules' folders come from the index, not ``.gitmodules``: git runs LINE in each
gitlink's folder, and takes only its name from ``.gitmodules``. Proven with git 2.39.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_index, git_repositories
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.options import read_options

#: How deep ``--recursive`` is followed here; deeper: not known.
_DEPTH = 8


def folders(argv: Sequence[str | None], cwds: Sequence[Path]) -> list[Path] | None:
    """The folders the git command ``argv`` (``git submodule foreach …``), run from any of
    ``cwds``, runs its line in (see the module doc); ``None`` when they are not known here, or
    ``argv`` is not such a command."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None or argv[1 + parsed.rest] != "submodule":
        return None
    words = argv[2 + parsed.rest:]
    actions = [w for w in words if w is None or not w.startswith("-")]
    if actions[:1] != ["foreach"]:
        return None
    where = git_repositories.folders(argv, cwds)
    if where.unknown or where.named or where.worktrees:
        return None
    recursive = "--recursive" in words  # (anywhere: it only adds folders)
    found: list[Path] = []
    for start in where.starts:
        for root in git_index.repository_roots(start):  # (none: not in a repository, git stops)
            below = _submodules(root, recursive, 0)
            if below is None:
                return None
            found += below
    return list(dict.fromkeys(found))


def _submodules(root: Path, recursive: bool, depth: int) -> list[Path] | None:
    links = git_index.gitlinks(root)
    if links is None or depth > _DEPTH:
        return None
    found: list[Path] = []
    for link in links:
        folder = root.joinpath(*link.split("/"))
        found.append(folder)
        if recursive and (folder / ".git").exists():
            nested = _submodules(folder, recursive, depth + 1)
            if nested is None:
                return None
            found += nested
    return found
