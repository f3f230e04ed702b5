"""The folders ``git grep`` searches when the line says exactly which: ``git grep KEY -- out``
reads only what is below ``out`` (git 2.39: strace shows nothing below src/ opened), so it is
judged by the words it is given, as ``grep -r KEY out`` is (s282).

Only a plain form is read so: the pattern alone before ``--`` (a revision there may be a tree
below the top, ``HEAD:src``, whose ``main.py`` is src/main.py), and after it pathspecs that are
plain names (no glob, ``*.py`` matches src/main.py; no ``:`` magic, ``:!out`` is everything
else; no case-blind matching, ``--icase-pathspecs`` or ``$GIT_ICASE_PATHSPECS`` make ``SRC``
src). Anything else searches as if it named the folder it runs in.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.options import read_options

__all__ = ["CASE_BLIND", "names_what_it_searches"]

#: The variable making every pathspec match whatever the letters' case (the line gives it to
#: ``env``: ``default_folders``).
CASE_BLIND = "GIT_ICASE_PATHSPECS"

#: The options giving git grep its pattern, so that no operand is one.
_PATTERN_OPTIONS = frozenset({"-e", "-f"})
_NOT_PLAIN = frozenset("*?[\\")


def names_what_it_searches(before: Sequence[str | None], args: Sequence[str | None]) -> bool:
    """Whether ``git BEFORE grep ARGS`` searches only below the pathspecs after its ``--``, each a
    plain name (``before``: git's own options, ``args``: grep's words)."""
    if "--icase-pathspecs" in before or line_environment.get(CASE_BLIND):
        return False
    parsed = read_options(args, git.SUBCOMMANDS["grep"])
    if parsed.dynamic or any(seen.option is None for seen in parsed.seen):
        return False
    taken = {seen.index + k for seen in parsed.seen for k in range(seen.words)}
    end = next((k for k, word in enumerate(args) if word == "--" and k not in taken), None)
    if end is None:
        return False
    named = {name for seen in parsed.seen if seen.option is not None for name in seen.option.names}
    patterns = [word for k, word in parsed.operands if k < end]
    paths = [word for k, word in parsed.operands if k > end]
    if len(patterns) != (0 if named & _PATTERN_OPTIONS else 1):
        return False  # (a revision: maybe a tree below the top)
    return bool(paths) and all(word and not word.startswith(":") and not _NOT_PLAIN & set(word) for word in paths)
