"""Whether a write rule may match a file below a folder a program writes anywhere below
(``Reading.written_below``: ``tar -x -C out``, ``unzip -d out``, ``pip install --target out``; the
top of a worktree git updates from a tree). No word of the line names what such a program
writes there, and a glob whose starting folder lies above the folder (``@workspace/**/*.env``)
matches no path the line names: the rule's starting folders and how deep its glob reaches are
judged instead. With ``@workspace/**/.github/**`` write-denied, ``unzip -q a.zip -d out/u``
wrote ``out/u/.github/workflows/ci.yml`` (unzip 6.0, tar 1.34 and pip 26 alike, under bash and
dash: s250).
"""

from __future__ import annotations

from pathlib import Path

from echo_desk.agent.permissions import floor
from echo_desk.agent.permissions.compiled import Compiled
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.tokens import Match

#: A name standing for any file directly in a folder, to ask a pattern whether it matches the
#: folder or one above it (then, read as gitignore reads it, everything the folder holds).
_ANY_FILE = "any-file"


def reaches_below(item: Compiled, top: Path, where: floor.Where, *, repository_aside: bool = False) -> bool:
    """Whether the path rule ``item`` may match a file below the folder ``top``: one of its
    starting folders is ``top`` or below it, or lies above it with a glob reaching below
    ``top`` (``~/**/*.pem``, not ``~/.*``). ``repository_aside``: ``top`` is the top of a
    worktree git writes from a tree, which puts no file in ``top/.git`` (git's own folder,
    trusted with git), so a rule only inside it does not count; an archive may hold ``.git``."""
    if not isinstance(item.matcher, PathPattern):
        return True
    pattern = item.matcher
    repository = top / ".git"
    for base in pattern.bases(workspaces=where.workspaces, home=where.home):
        if repository_aside and (base == repository or repository in base.parents):
            continue
        if base == top or top in base.parents:
            return True
        if base in top.parents and _glob_reaches(pattern, base, top, where):
            return True
    return False


def _glob_reaches(pattern: PathPattern, base: Path, top: Path, where: floor.Where) -> bool:
    """Whether ``pattern``, whose plain part ends at ``base`` above ``top``, may match a file
    below ``top``: a ``**`` reaches any depth; a glob of more parts than ``top`` lies below
    ``base`` may; one of no more parts matches below ``top`` only by matching ``top`` or a
    folder above it (``@workspace/o*`` and ``out``), and so everything there."""
    glob = pattern.glob_parts()
    if any("**" in part for part in glob):
        return True
    if len(glob) > len(top.relative_to(base).parts):
        return True
    return pattern.match(top / _ANY_FILE, workspaces=where.workspaces, home=where.home) is Match.YES
