"""git commands that read the whole repository without a word naming what they read: ``git
diff``, ``git show``, ``git log -p``, ``git status``, ``git cat-file -p HEAD:src/main.py``,
``git archive HEAD``, ``git ls-tree -r HEAD``. With ``@workspace/src/**`` read-denied and
src/main.py committed, each printed its ``KEY=secret`` line or its name under bash and dash
while the rule ``git **`` allowed it (s279). The deny rules judge such a command as if the line
named the repository's top folder (``repository_tops``): git reads the worktree, the index and
the history from there, whatever folder below it the line runs in.

A pathspec after ``--`` limits what it reads, where the engine reads it as git does: plain
names (no glob, no ``:`` magic) and no global option changing where or how git matches them.
So does a word before any ``--`` naming a file that exists where the line runs (``git diff
a.txt``, ``git log -p a.txt``): git takes a word that is not a revision as a path only when it
names an existing file, and stops ("ambiguous argument") when it is both (s281, git 2.39).
Anything else counts as the whole repository: one more ask, never a missed deny.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_config, git_index, git_variables
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.options import read_options
from echo_desk.agent.permissions.repository_tops import repository_tops

__all__ = ["names_a_file", "reads_whole_repository"]

Args = Sequence[str | None]
#: Whether git takes a word before ``--`` as a path (``names_a_file``, from where it runs).
IsPath = Callable[[str], bool]

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
#: Subcommands that read their words before ``--`` as git's revision parser does
#: (``setup_revisions``): revisions, then, from the first word that is not one, paths.
_REVISIONS_THEN_PATHS = frozenset({"diff", "log", "show", "whatchanged"})
#: What marks a word as revision syntax (``HEAD~1``, ``a^``, ``@{1}``, ``rev:path``, ``a..b``),
#: or one git may match as a pathspec glob, or an object name's abbreviation.
_REVISION_MARKS = frozenset(":^~@{}\\*?[")
_OBJECT_NAME = re.compile(r"[0-9a-fA-F]{4,}")
#: How git spells false (a ``core.bare`` of any other value may be true).
_FALSE = frozenset({"false", "no", "off", "0"})
#: Where git looks for a ref a word may name (``refs.c``, ``ref_rev_parse_rules``).
_REF_FORMS = ("{}", "refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")


def reads_whole_repository(args: Args, is_path: IsPath | None = None) -> bool:
    """Whether ``git`` with the words ``args`` (after its name) reads the repository's files,
    index or history beyond what a pathspec in the line limits it to (``is_path``: whether a
    word before ``--`` is one; none is without it)."""
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
    return not (plain_globals and _limited(sub, words, is_path or _no_path))


def _no_path(word: str) -> bool:
    return False


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


def _limited(sub: str, words: Args, is_path: IsPath) -> bool:
    """Whether a ``--`` git reads as the end of options is followed by plain pathspecs only, and
    no word before it names a file inside a revision (``HEAD:src/main.py``); or, with no ``--``,
    the words from the first that names a file on (``is_path``) all do."""
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
        return sub in _REVISIONS_THEN_PATHS and _paths_without_end([value for _, value in parsed.operands], is_path)
    before = [value for at, value in parsed.operands if at < ends[0]]
    after = [value for at, value in parsed.operands if at > ends[0]]
    if any(value is None or ":" in value for value in before):
        return False
    return bool(after) and all(_plain(value) for value in after)


def _paths_without_end(operands: list[str | None], is_path: IsPath) -> bool:
    """Whether git, given ``operands`` and no ``--``, reads revisions (none naming a file in a
    tree: ``HEAD:src/main.py``) and then paths only, and at least one."""
    first = next((k for k, value in enumerate(operands) if value is not None and is_path(value)), None)
    if first is None:
        return False
    revisions, paths = operands[:first], operands[first:]
    return all(v is not None and ":" not in v for v in revisions) and all(v is not None and is_path(v) for v in paths)


def names_a_file(word: str, folder: Path) -> bool:
    """Whether git run in ``folder`` takes ``word``, before any ``--``, as the path of a file
    there, and never as a revision: it names an existing file of the worktree and nothing git
    could read as a revision (revision syntax, an abbreviated object name, a ref of that name),
    in a repository whose worktree is where git finds it (no ``GIT_DIR``, ``GIT_WORK_TREE``,
    ``core.worktree`` or ``core.bare``; a plain ``.git`` folder, none passed over on the way),
    outside its ``.git``. (git refuses a word that is both;
    one that is neither a file nor a revision too.)"""
    if not word or word.startswith("-") or _REVISION_MARKS & set(word) or ".." in word:
        return False
    if _OBJECT_NAME.fullmatch(word) is not None:
        return False
    root = git_index.repository_root(folder)
    moved = git_variables.moved()
    if root is None or moved.git_dir or moved.work_tree or ".git" in folder.relative_to(root).parts:
        return False
    if repository_tops(folder, "git") != [root]:
        return False  # (a .git git passes over or follows: its settings are not the ones read here)
    git_dir = git_index.git_dir_of(root)
    if git_dir is None or not os.path.lexists(folder / word):
        return False
    common = git_config.common_dir(git_dir)
    if common is None:
        return False
    for settings in (git_dir / "config", git_dir / "config.worktree", common / "config"):
        entries = git_config.file_entries(settings)
        if entries is None or any(s == "core" and (k == "worktree" or (k == "bare" and v.lower() not in _FALSE))
                                  for s, _, k, v in entries):
            return False
    return not any(_names_ref(base, word) for base in dict.fromkeys((git_dir, common)))


def _names_ref(git_dir: Path, word: str) -> bool:
    """Whether ``word`` names a ref of the repository folder ``git_dir``, loose or packed (one
    not read counts)."""
    names = [form.format(word) for form in _REF_FORMS]
    if any(os.path.lexists(git_dir / name) for name in names):
        return True
    try:
        with open(git_dir / "packed-refs", encoding="utf-8", errors="replace") as handle:
            packed = {line.rstrip("\n").partition(" ")[2] for line in handle}
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return bool(packed & set(names))


def _plain(pathspec: str | None) -> bool:
    return bool(pathspec) and pathspec is not None and not pathspec.startswith(":") and not _GLOB & set(pathspec)
