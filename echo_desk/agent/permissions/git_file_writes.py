"""The files git's own subcommands write where no word of the line names them, for the write
rules to judge (``Reading.written``, and folders they write anywhere below:
``Reading.written_below``). A rule naming git (``git **``) trusts git, not every place it
writes: with the agent's writes kept to ``out/``, each of these wrote outside them (git 2.39,
bash and dash, strace):

- ``git format-patch REV``: a ``NNNN-subject.patch`` per commit in the folder it runs in,
  unless ``--stdout`` prints them or ``-o``/``--output-directory``/``--output`` name where
  (those values are judged as any writing option's);
- ``git bugreport``, ``git diagnose``: their report (``git-bugreport-DATE.txt``, a zip) in the
  folder it runs in unless ``-o``/``--output-directory`` names one; ``bugreport`` then opens
  the editor on it (``git_reading`` makes that a program it runs);
- ``git unpack-file BLOB``: a ``.merge_file_XXXXXX`` in the folder it runs in;
- ``git pack-objects BASE``: ``BASE-HASH.pack`` and ``.idx`` beside BASE (``out`` wrote
  ``./out-HASH.pack``), unless ``--stdout``;
- ``git credential-store``: ``~/.git-credentials`` and ``~/.config/git/credentials`` unless
  ``--file`` names the file (``store`` and ``erase`` rewrite them; ``get`` reads);
- ``git credential-cache``: its socket folder ``~/.cache/git/credential`` (or
  ``~/.git-credential-cache``), and a daemon left running, unless ``--socket`` names one;
- ``git maintenance register``/``unregister``: the person's git settings (``~/.gitconfig``…,
  as ``git config --global`` writes them: ``git_settings_writes``), which list the
  repositories the scheduled maintenance runs git in; ``start``/``stop`` write them too and
  install or remove a systemd timer or a crontab entry (places not known here: ``None``).

``git rm PATHSPEC…`` names files by pathspecs, which git matches itself: a wildcard matches
every file below the folder before it (``git rm 'out/d/*'`` and ``git rm 'out/d/x.en?'``
deleted the tracked ``out/d/x.env`` beside ``@workspace/**/*.env`` write-denied), as does any
name with ``--icase-pathspecs``. Such a pathspec is judged as a write anywhere below that folder
(a magic one, ``:/…``, is not known here); a plain one is judged as the word it is, as ``rm``'s
are. ``--cached`` and ``-n``/``--dry-run`` leave the worktree alone.

Paths are read from where ``-C`` leads. A word only known when the line runs makes the place not
known (``None``): the write rules ask. Subcommands not listed write only their repository's
own folder here, or name what they write (``git bundle create FILE``, ``git merge-file FILE``):
those words are judged as any word of the line. Version read: git 2.39's manuals and sources.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.git_settings_writes import from_starts, global_files
from echo_desk.agent.permissions.long_prefixes import long_prefix

Paths = tuple[str | None, ...]


@dataclass(frozen=True)
class Written:
    """The files (``files``) and folders (``below``) a git command writes that no word names."""

    files: Paths = ()
    below: Paths = ()


#: The options that print to the standard output instead of writing files.
_STDOUT = ("--stdout",)
#: The subcommands that write into the folder they run in unless one of these options names
#: the place (long names; ``short`` is the short option doing the same).
_HERE = {
    "format-patch": (("--output-directory", "--output"), "o"),
    "bugreport": (("--output-directory",), "o"),
    "diagnose": (("--output-directory",), "o"),
    "unpack-file": ((), ""),
}
#: The short options of those subcommands that take a value as the rest of their word (a group
#: ``-kv4o`` names a reroll count, not ``-o``).
_VALUED_SHORT = {"format-patch": "vo", "bugreport": "so", "diagnose": "so"}
_CREDENTIAL_FILES = ("~/.git-credentials", "~/.config/git/credentials")
_CREDENTIAL_SOCKETS = ("~/.cache/git/credential", "~/.git-credential-cache")
#: ``git credential-store`` actions that only read.
_READING_CREDENTIAL_ACTIONS = frozenset({"get"})


def written(argv: Sequence[str | None], at: int) -> Written:
    """What the git command ``argv`` (its subcommand at ``at``) writes that no word names (see
    the module doc)."""
    sub = argv[at]
    words = list(argv[at + 1:])
    if sub not in _HERE and sub not in ("pack-objects", "credential-store", "credential-cache", "maintenance", "rm"):
        return Written()
    if None in words:
        return Written(below=(None,))
    if sub == "rm":
        return _pathspecs(argv, words)
    options = [w for w in words if w is not None and w.startswith("-") and w != "-"]
    operands = [w for w in words if w is not None and not (w.startswith("-") and w != "-")]

    def given(*names: str) -> bool:
        return any(long_prefix(w, n) for w in options for n in names)

    if sub in _HERE:
        names, short = _HERE[sub]
        if given(*_STDOUT) or (names and given(*names)) or (short and _short_given(options, short, _VALUED_SHORT[sub])):
            return Written()
        return Written(below=(from_starts(argv, "."),))
    if sub == "pack-objects":
        if given(*_STDOUT) or not operands:
            return Written()
        base = operands[0]
        return Written(below=(from_starts(argv, os.path.dirname(base) or "."),))
    if sub == "credential-store":
        if given("--file") or (operands and operands[0] in _READING_CREDENTIAL_ACTIONS):
            return Written()
        return Written(files=_CREDENTIAL_FILES)
    if sub == "credential-cache":
        return Written() if given("--socket") else Written(below=_CREDENTIAL_SOCKETS)
    action = operands[0] if operands else None
    if action in ("register", "unregister"):
        return Written(files=global_files())
    if action in ("start", "stop"):
        return Written(files=(*global_files(), None))
    return Written()


#: The options of ``git rm`` (git 2.39), and those that leave the worktree alone.
_RM_LETTERS = frozenset("fnrq")
_RM_OPTIONS = ("--force", "--dry-run", "--cached", "--ignore-unmatch", "--quiet", "--sparse", "--pathspec-file-nul")
_INDEX_ONLY = ("--cached", "--dry-run")
_WILDCARDS = "*?[\\"


def _pathspecs(argv: Sequence[str | None], words: Sequence[str | None]) -> Written:
    """The folders ``git rm`` deletes anywhere below: the folder part of each pathspec git
    matches itself (a plain one is judged as its word)."""
    letters, longs = _RM_LETTERS, _RM_OPTIONS
    operands: list[str] = []
    ended = False
    for word in words:
        if word is None:
            return Written(below=(None,))
        if ended or not word.startswith("-") or word == "-":
            operands.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            if not any(long_prefix(word, n) for n in longs) or "=" in word:
                return Written(below=(None,))  # (--pathspec-from-file, or an option not known here)
            if any(long_prefix(word, n) for n in _INDEX_ONLY):
                return Written()
        elif not set(word[1:]) <= letters:
            return Written(below=(None,))
        elif "n" in word[1:]:
            return Written()
    icase = "--icase-pathspecs" in argv or line_environment.get("GIT_ICASE_PATHSPECS") not in ("", "0")
    matched = [_folder_part(o, icase) for o in operands]
    return Written(below=tuple(from_starts(argv, m) if m is not None else None for m in matched if m != ""))


def _folder_part(pathspec: str, icase: bool) -> str | None:
    """The folder below which git may match ``pathspec`` (``""``: only the file it names, judged
    as its word; ``None``: a magic pathspec, ``:/…``, not read here); with ``icase`` the last
    part may match other names too."""
    if pathspec.startswith(":"):
        return None
    cut = min((pathspec.find(c) for c in _WILDCARDS if c in pathspec), default=-1)
    if cut < 0 and not icase:
        return ""
    literal = pathspec.rstrip("/") if cut < 0 else pathspec[:cut]
    return os.path.dirname(literal) or "."


def _short_given(options: Sequence[str], letter: str, valued: str) -> bool:
    """Whether a group of short options holds ``letter`` before any other letter of ``valued``,
    whose value is the rest of the word."""
    for word in options:
        if word.startswith("--"):
            continue
        for char in word[1:]:
            if char == letter:
                return True
            if char in valued:
                break
    return False
