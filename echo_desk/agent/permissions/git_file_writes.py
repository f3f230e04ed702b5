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
- ``git credential-store``: ``~/.git-credentials`` and ``~/.config/git/credentials`` (or
  ``$XDG_CONFIG_HOME/git/credentials``) unless ``--file`` names the file (``store`` and
  ``erase`` rewrite them; ``get`` reads: ``git_unnamed_reads``);
- ``git credential-cache``: its socket folder ``~/.cache/git/credential`` (or
  ``~/.git-credential-cache``), and a daemon left running, unless ``--socket`` names one;
- ``git maintenance register``/``unregister``: the person's git settings (``~/.gitconfig``…,
  as ``git config --global`` writes them: ``git_settings_writes``), which list the
  repositories the scheduled maintenance runs git in; ``start``/``stop`` write them too and
  install or remove a systemd timer or a crontab entry (by git's manual: not run here; places
  not known here, ``None``).

``git push REPOSITORY`` and ``git send-pack REPOSITORY``, given a path (or a ``file://`` URL)
rather than a configured remote's name or a network URL, write the objects and refs of the
repository there, and its worktree where its settings say ``receive.denyCurrentBranch =
updateInstead``: ``git push ../remote.git HEAD:refs/heads/evil`` wrote outside the workspace
under ``git **`` with the agent's writes kept to ``out/``. Such a path is judged as a folder
written anywhere below (``.``, the repository itself, is git's own folder).

``git rm PATHSPEC…`` names files by pathspecs, which git matches itself: a wildcard matches
every file below the folder before it (``git rm 'out/d/*'`` and ``git rm 'out/d/x.en?'``
deleted the tracked ``out/d/x.env`` beside ``@workspace/**/*.env`` write-denied), as does any
name with ``--icase-pathspecs``. Such a pathspec is judged as a write anywhere below that folder
(a magic one, ``:/…``, is not known here); a plain one is judged as the word it is, as ``rm``'s
are, and with ``-r`` as a folder removed whole (``Written.removed``: ``removed_folders``): ``git
rm -r d`` deleted the tracked ``d/x.env``. ``--cached`` and ``-n``/``--dry-run`` leave the
worktree alone. ``git mv SOURCE… DEST`` renames each source, a folder with every file below it
(``git mv d e`` moved ``d/x.env`` to ``e/x.env``, ``-k`` too): each source is judged as a folder
moved away whole, and as a folder written anywhere below the destination (``Written.landed``: ``git
mv out/d prod`` put ``out/d/x.env`` at ``prod/x.env``, s320); ``-n``/``--dry-run`` moves nothing
(git 2.39, bash and dash, strace, s316).

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
from echo_desk.agent.permissions.git_unnamed_reads import CREDENTIAL_SOCKETS, credential_files
from echo_desk.agent.permissions.long_prefixes import long_prefix

Paths = tuple[str | None, ...]


@dataclass(frozen=True)
class Written:
    """The files (``files``) and folders (``below``) a git command writes that no word names, and
    the paths it removes or moves away whole (``removed``)."""

    files: Paths = ()
    below: Paths = ()
    removed: Paths = ()
    #: Each path moved whole and where it lands (``git mv d prod``: ``prod`` or ``prod/d``).
    landed: tuple[tuple[str | None, str | None], ...] = ()


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
#: ``git credential-store`` actions that only read.
_READING_CREDENTIAL_ACTIONS = frozenset({"get"})


def written(argv: Sequence[str | None], at: int) -> Written:
    """What the git command ``argv`` (its subcommand at ``at``) writes that no word names (see
    the module doc)."""
    sub = argv[at]
    words = list(argv[at + 1:])
    if sub not in _HERE and sub not in ("pack-objects", "credential-store", "credential-cache", "maintenance", "rm",
                                        "mv", "push", "send-pack"):
        return Written()
    if sub in ("push", "send-pack"):
        return _pushed(argv, words)
    if sub in ("rm", "mv"):
        return _pathspecs(argv, words) if sub == "rm" else _moved(argv, words)
    if None in words:
        return Written(below=(None,))
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
        return Written(files=credential_files())
    if sub == "credential-cache":
        return Written() if given("--socket") else Written(below=CREDENTIAL_SOCKETS)
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
    read = _operands(words, _RM_LETTERS, _RM_OPTIONS, _INDEX_ONLY)
    if read is None:
        return Written(below=(None,), removed=(None,))  # (--pathspec-from-file, or an option not known here)
    operands, recursive = read
    icase = "--icase-pathspecs" in argv or line_environment.get("GIT_ICASE_PATHSPECS") not in ("", "0")
    matched = [_folder_part(o, icase) for o in operands]
    # (with -r a plain pathspec naming a folder deletes every tracked file below it)
    whole = tuple(from_starts(argv, o) for o, m in zip(operands, matched, strict=True) if m == "") if recursive else ()
    return Written(below=tuple(from_starts(argv, m) if m is not None else None for m in matched if m != ""),
                   removed=whole)


#: The options of ``git mv`` (git 2.39), and the one that moves nothing.
_MV_LETTERS = frozenset("fknv")
_MV_OPTIONS = ("--force", "--dry-run", "--verbose", "--sparse")


def _moved(argv: Sequence[str | None], words: Sequence[str | None]) -> Written:
    """The sources ``git mv`` moves away (every operand but the destination, the last), each
    taking every file below it along."""
    read = _operands(words, _MV_LETTERS, _MV_OPTIONS, ("--dry-run",))
    if read is None:
        return Written(removed=(None,), landed=((None, None),))
    operands, _ = read
    sources = tuple(from_starts(argv, o) for o in operands[:-1])
    destination = from_starts(argv, operands[-1]) if operands else None
    return Written(removed=sources, landed=tuple((s, destination) for s in sources))


def _operands(words: Sequence[str | None], letters: frozenset[str], longs: Sequence[str],
              leaving: Sequence[str]) -> tuple[list[str], bool] | None:
    """The operands of ``git rm``/``git mv`` (``words``, none ``None``) and whether ``-r`` is
    given; ``([], False)`` when an option in ``leaving`` (or ``-n``) leaves the worktree alone;
    ``None`` for an option not known here."""
    operands: list[str] = []
    recursive = ended = False
    for word in words:
        if word is None:
            return None
        if ended or not word.startswith("-") or word == "-":
            operands.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            if not any(long_prefix(word, n) for n in longs) or "=" in word:
                return None
            if any(long_prefix(word, n) for n in leaving):
                return [], False
        elif not set(word[1:]) <= letters:
            return None
        elif "n" in word[1:]:
            return [], False
        else:
            recursive = recursive or "r" in word[1:]
    return operands, recursive


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


#: ``git push``'s and ``git send-pack``'s options that take the next word as their value
#: (``-o`` too: the rest of its word, else the next).
_PUSH_VALUED_LONG = ("--repo", "--receive-pack", "--exec", "--push-option")
#: Network URL schemes (``file://`` is a path).
_NETWORK = ("http://", "https://", "ssh://", "git://", "ftp://", "ftps://", "git+ssh://", "ssh+git://")


def _pushed(argv: Sequence[str | None], words: Sequence[str | None]) -> Written:
    """The local repository ``git push`` (``send-pack``) writes into, when its first operand or
    ``--repo`` names one by a path (see the module doc)."""
    named: list[str | None] = []
    operands: list[str | None] = []
    k = 0
    while k < len(words) and not operands:
        word = words[k]
        following = words[k + 1] if k + 1 < len(words) else ""
        if word is None or (following is None and word.startswith("-")):
            return Written(below=(None,))  # (a word only known when it runs: which one is the repository)
        if not word.startswith("-") or word == "-":
            operands.append(word)
        elif word == "--":
            operands += words[k + 1:k + 2]
        elif word.startswith("--"):
            name, equals, given = word.partition("=")
            valued = next((n for n in _PUSH_VALUED_LONG if long_prefix(name, n)), None)
            value = given if equals or valued is None else following
            k += 1 if valued is not None and not equals else 0
            if valued == "--repo":
                named.append(value)
        elif "o" in word[1:] and not word[word.index("o", 1) + 1:]:
            k += 1  # (-o's value is the next word)
        k += 1
    if None in operands or None in named:
        return Written(below=(None,))
    places = [_local_path(r) for r in [*named, *operands] if r is not None]
    return Written(below=tuple(from_starts(argv, p) for p in places if p is not None))


def _local_path(repository: str) -> str | None:
    """The folder a repository argument names on this machine (``None``: a remote's name, a
    network URL, an ``ssh`` ``host:path``, or the repository itself, ``.``)."""
    if repository.startswith("file://"):
        return repository.removeprefix("file://") or None
    if repository.startswith(_NETWORK) or repository in (".", "./"):
        return None
    colon, slash = repository.find(":"), repository.find("/")
    if colon >= 0 and (slash < 0 or colon < slash):
        return None  # (``host:path``: git reaches it over ssh)
    is_path = repository.startswith(("/", "~", "./", "../")) or "/" in repository or repository == ".."
    return repository if is_path else None


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
