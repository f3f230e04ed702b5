"""git commands that read the whole repository without a word naming what they read: ``git
diff``, ``git show``, ``git log -p``, ``git status``, ``git cat-file -p HEAD:src/main.py``,
``git archive HEAD``, ``git ls-tree -r HEAD``. With ``@workspace/src/**`` read-denied and
src/main.py committed, each printed its ``KEY=secret`` line or its name under bash and dash
while the rule ``git **`` allowed it (s279). The deny rules judge such a command as if the line
named the repository's top folder (``repository_top``): git reads the worktree, the index and
the history from there, whatever folder below it the line runs in.

A pathspec after ``--`` limits what it reads, where the engine reads it as git does: plain
names (no glob, no ``:`` magic) and no global option changing where or how git matches them.
Anything else counts as the whole repository: one more ask, never a missed deny.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.options import read_options

__all__ = ["reads_whole_repository", "repository_top"]

Args = Sequence[str | None]

#: Subcommands that print the content or the names of files across the repository.
_READERS = frozenset({
    "diff", "diff-index", "diff-files", "diff-tree", "difftool", "show", "whatchanged", "format-patch",
    "range-diff", "status", "cat-file", "archive", "ls-tree", "blame", "annotate", "fast-export", "bundle",
    "stash", "log", "reflog", "shortlog", "rev-list",
})
#: Of those, the ones that print only commits (hashes, authors, messages) unless an option asks
#: for more (``git log --oneline`` prints no file, ``git log -p`` prints them all).
_COMMITS_ONLY = frozenset({"log", "reflog", "shortlog", "stash"})
#: The options that keep them to commits.
_COMMIT_DISPLAY = frozenset({
    "--oneline", "--graph", "--decorate", "--no-decorate", "--all", "--branches", "--tags", "--remotes",
    "-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--author", "--committer",
    "--grep", "--format", "--pretty", "--date", "--reverse", "--no-merges", "--merges", "--first-parent",
    "--abbrev-commit", "--no-abbrev-commit", "--abbrev", "--relative-date", "--no-color", "--color",
    "-s", "--summary-only", "--numbered", "--email", "-e", "--no-walk", "--all-match", "-i",
    "--regexp-ignore-case",
})
#: Global options that leave pathspecs read as the engine reads them (``-C``, ``--git-dir``,
#: ``--icase-pathspecs``, ``--glob-pathspecs`` move or widen what they match).
_PLAIN_GLOBALS = frozenset({"--no-pager", "-P", "-p", "--paginate", "--no-optional-locks", "--no-advice",
                            "--literal-pathspecs", "--no-replace-objects", "--no-lazy-fetch"})
_GLOB = frozenset("*?[")


def reads_whole_repository(args: Args) -> bool:
    """Whether ``git`` with the words ``args`` (after its name) reads the repository's files,
    index or history beyond what a pathspec in the line limits it to."""
    globals_ = read_options(args, git.GLOBAL)
    if globals_.rest is None:
        return globals_.dynamic
    sub = args[globals_.rest]
    if sub is None:
        return True
    if sub not in _READERS:
        return False
    words = args[globals_.rest + 1:]
    if any(word is None for word in words):
        return True
    plain_globals = all(word in _PLAIN_GLOBALS for word in args[:globals_.rest])
    if sub in _COMMITS_ONLY and _commits_only(sub, words):
        return False
    return not (plain_globals and _limited(sub, words))


def _commits_only(sub: str, words: Args) -> bool:
    """Whether every option of ``git log`` (``reflog``, ``shortlog``, ``stash list``) keeps it
    to commits: no diff, stat, names or pickaxe."""
    if sub == "stash":
        if not words or words[0] != "list":
            return False
        words = words[1:]
    for word in words:
        assert word is not None
        if word == "--":
            return True
        if word.startswith("-") and len(word) > 1 and not word[1:].isdigit() and not _displays_commits(word):
            return False
    return True


def _displays_commits(option: str) -> bool:
    if option.startswith("--"):
        return option.partition("=")[0] in _COMMIT_DISPLAY
    return all(f"-{letter}" in _COMMIT_DISPLAY for letter in option[1:])  # (``-sn``: ``-s -n``)


def _limited(sub: str, words: Args) -> bool:
    """Whether a ``--`` git reads as the end of options is followed by plain pathspecs only, and
    no word before it names a file inside a revision (``HEAD:src/main.py``)."""
    spec = git.SUBCOMMANDS.get(sub)
    if spec is None or sub in ("cat-file", "archive", "ls-tree", "fast-export", "bundle"):
        return False  # (options not known here, or objects named by revision, not by path)
    parsed = read_options(words, spec)
    if parsed.dynamic:
        return False
    values = {seen.index + 1 for seen in parsed.seen if seen.words == 2}
    operands = {at for at, _ in parsed.operands}
    ends = [k for k, word in enumerate(words) if word == "--" and k not in values and k not in operands]
    if not ends:
        return False
    before = [value for at, value in parsed.operands if at < ends[0]]
    after = [value for at, value in parsed.operands if at > ends[0]]
    if any(value is None or ":" in value for value in before):
        return False
    return bool(after) and all(_plain(value) for value in after)


def _plain(pathspec: str | None) -> bool:
    return bool(pathspec) and pathspec is not None and not pathspec.startswith(":") and not _GLOB & set(pathspec)


def repository_top(folder: Path) -> Path:
    """The top of the repository ``folder`` is in (the nearest folder holding ``.git`` or
    ``.hg``), or ``folder`` itself outside any."""
    for candidate in (folder, *folder.parents):
        if any(os.path.lexists(candidate / marker) for marker in (".git", ".hg")):
            return candidate
    return folder
