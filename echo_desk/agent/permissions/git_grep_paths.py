"""The folders ``git grep`` searches when the line says exactly which: ``git grep KEY -- out``
reads only what is below ``out`` (git 2.39: strace shows nothing below src/ opened), so it is
judged by the words it is given, as ``grep -r KEY out`` is (s282).

Only a plain form is read so: the pattern alone before ``--`` (a revision there may be a tree
below the top, ``HEAD:src``, whose ``main.py`` is src/main.py), and after it pathspecs that are
plain names (no glob, ``*.py`` matches src/main.py; no ``:`` magic, ``:!out`` is everything
else; no case-blind matching, ``--icase-pathspecs`` or ``$GIT_ICASE_PATHSPECS`` make ``SRC``
src). Anything else searches as if it named the folder it runs in.

From a folder below the top (``cd out && git grep KEY``, ``git -C out grep KEY``), git grep
searches only below that folder, the plain pathspecs taken from there: with ``--untracked``,
``--no-index`` and ``--cached`` too (strace, git 2.39, bash and dash: nothing below src/ opened
beside a read deny on it, s302). Only while the repository git finds from that folder is the one
it finds from where the line runs (``shell_verdict``): with ``out/.git`` holding ``gitdir:
../.git``, out/ is the top of the workspace's repository and its index names src/main.py, which
``--cached`` printed from the history and the worktree read through a link ``out/src``. Not with
``--recurse-submodules`` (a submodule's own index names what it reads) nor a global option other
than ``-C`` and those changing nothing (``--git-dir``, ``--work-tree`` choose the repository).
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import git_variables, line_environment
from echo_desk.agent.permissions.options import read_options

__all__ = ["CASE_BLIND", "names_what_it_searches", "searches_below_its_folder"]

#: The variable making every pathspec match whatever the letters' case (the line gives it to
#: ``env``: ``default_folders``).
CASE_BLIND = "GIT_ICASE_PATHSPECS"

#: The options giving git grep its pattern, so that no operand is one.
_PATTERN_OPTIONS = frozenset({"-e", "-f"})
_NOT_PLAIN = frozenset("*?[\\")
#: git's global options that leave the repository and the pathspecs as found from the folder
#: (``-C`` moves to it: judged by the caller).
_PLAIN_GLOBALS = frozenset({"-C", "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch",
                            "--no-optional-locks", "--no-advice", "--literal-pathspecs"})


def names_what_it_searches(before: Sequence[str | None], args: Sequence[str | None]) -> bool:
    """Whether ``git BEFORE grep ARGS`` searches only below the pathspecs after its ``--``, each a
    plain name (``before``: git's own options, ``args``: grep's words)."""
    return bool(_plain_pathspecs(before, args))


def searches_below_its_folder(before: Sequence[str | None], args: Sequence[str | None]) -> bool:
    """Whether ``git BEFORE grep ARGS`` searches only below the folder it runs in: below its plain
    pathspecs taken from there, or the whole folder when it is given none."""
    own = read_options(args, git.SUBCOMMANDS["grep"])
    if _plain_pathspecs(before, args) is None or any(
            seen.option is not None and "--recurse-submodules" in seen.option.names for seen in own.seen):
        return False
    moved = git_variables.moved()
    if moved.git_dir or moved.work_tree or moved.common_dir or moved.data or moved.unknown:
        return False  # (the environment chooses the repository, its index or its history)
    parsed = read_options(before, git.GLOBAL)
    return parsed.rest is None and not parsed.dynamic and all(
        seen.option is not None and bool(_PLAIN_GLOBALS & set(seen.option.names)) for seen in parsed.seen)


def _plain_pathspecs(before: Sequence[str | None], args: Sequence[str | None]) -> list[str] | None:
    """The pathspecs of ``git BEFORE grep ARGS`` when its pattern is its only word before them and
    each is a plain name (none given: ``[]``), else ``None``."""
    if "--icase-pathspecs" in before or line_environment.get(CASE_BLIND):
        return None
    parsed = read_options(args, git.SUBCOMMANDS["grep"])
    if parsed.dynamic or any(seen.option is None for seen in parsed.seen):
        return None
    taken = {seen.index + k for seen in parsed.seen for k in range(seen.words)}
    end = next((k for k, word in enumerate(args) if word == "--" and k not in taken), len(args))
    named = {name for seen in parsed.seen if seen.option is not None for name in seen.option.names}
    patterns = [word for k, word in parsed.operands if k < end]
    paths = [word for k, word in parsed.operands if k > end]
    if len(patterns) != (0 if named & _PATTERN_OPTIONS else 1):
        return None  # (a revision, or a path without `--`: maybe a tree below the top)
    if not all(word and not word.startswith(":") and not _NOT_PLAIN & set(word) for word in paths):
        return None
    return [word for word in paths if word is not None]
