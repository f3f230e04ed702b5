"""hg commands that read the whole repository when no word names what they read: ``hg files``
lists every tracked name and ``hg grep KEY`` prints ``src/main.py:KEY=secret`` even run in
out/, as ``hg status --all``, ``hg diff``, ``hg log -p`` and ``hg export`` do from the
repository's top (hg 6.3, bash and dash, s279). The deny rules judge them as if the line named
that top (``repository_tops``).

Their file words are hg patterns (globs by default, ``path:``, ``re:``, ``set:``… reach any
depth), so only plain names limit them, and only where every other word is a flag known here
to take no value (a value could be taken for a name): anything else counts as the whole
repository.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions.hg_commands import GLOBAL
from echo_desk.agent.permissions.options import OptionSet, read_options

__all__ = ["reads_whole_repository"]

Args = Sequence[str | None]

#: Commands that print the content or the names of tracked files (``hg help``, 6.3), with hg's
#: other names for them.
_READERS = frozenset({"files", "locate", "manifest", "grep", "cat", "annotate", "status", "diff", "log",
                      "export", "archive", "bundle", "incoming", "outgoing", "heads", "tip", "shelve"})
_ALIASES = {"st": "status", "blame": "annotate", "history": "log", "in": "incoming", "out": "outgoing"}
#: Commands that print only changesets unless an option asks for more (``-p``, ``--stat``,
#: ``-v`` lists the files, a template may print ``{diff}``).
_CHANGESETS_ONLY = frozenset({"log", "heads", "tip", "incoming", "outgoing"})
#: Their options that keep them to changesets, with those taking a value (the next word).
_CHANGESET_FLAGS = frozenset({"-q", "--quiet", "-G", "--graph", "--no-merges", "-M", "--follow", "-f",
                              "--removed", "--color", "--pager", "-y", "--noninteractive"})
#: hg's ``--cwd`` and ``-R`` among them name where the repository is, not what is printed of it
#: (``hg log --cwd out`` printed the changesets of the repository it found from out/: s309).
_CHANGESET_VALUES = frozenset({"-l", "--limit", "-r", "--rev", "-u", "--user", "-d", "--date", "-k", "--keyword",
                               "-b", "--branch", "--cwd", "-R", "--repository", "--repo"})
#: Flags that take no value in every file-reading command (so a word after one is a pattern):
#: not ``-r`` (``--rev`` of diff, ``--removed`` of status), nor ``-c``, ``-u``, ``-d``, ``-l``.
_FILE_FLAGS = frozenset({"-a", "--all", "--modified", "-A", "--added", "--removed", "--deleted", "--clean",
                         "--unknown", "--ignored", "-n", "--no-status", "-C", "--copies", "-0", "--print0",
                         "--stat", "-g", "--git", "-w", "--ignore-all-space", "--ignore-space-change", "-B",
                         "--ignore-blank-lines", "--files-with-matches", "--line-number", "-q", "--quiet", "-p", "--patch",
                         "-v", "--verbose"})
_GLOB = frozenset("*?[{")


def reads_whole_repository(args: Args) -> bool:
    """Whether ``hg`` with the words ``args`` (after its name) reads the repository's files or
    history beyond what plain names in the line limit it to."""
    globals_ = read_options(args, OptionSet(GLOBAL, permute=False))
    if globals_.dynamic or any(seen.option is None for seen in globals_.seen):
        return True  # (hg stops at an option it does not know: what follows is not read here)
    if globals_.rest is None:
        return False
    word = args[globals_.rest]
    if word is None:
        return True
    command = _command(word)
    if command is None:
        return False
    words = list(args[globals_.rest + 1:])
    if any(w is None for w in words):
        return True
    if command in _CHANGESETS_ONLY and _changesets_only(words):
        return False
    if globals_.seen:
        return True  # (--cwd, -R, --config move or change what the names match)
    return not _limited(command, words)


def _command(word: str) -> str | None:
    """The reading command ``word`` names: an other name, the name, or a prefix of one (a
    prefix hg finds ambiguous stops hg: counting it costs one ask)."""
    if word in _ALIASES:
        return _ALIASES[word]
    return word if word in _READERS else next((name for name in sorted(_READERS) if name.startswith(word)), None)


def _changesets_only(words: list[str | None]) -> bool:
    takes_value = False
    for word in words:
        assert word is not None
        if takes_value:
            takes_value = False
        elif word.partition("=")[0] in _CHANGESET_VALUES:
            takes_value = "=" not in word
        elif word.startswith("-") and word not in _CHANGESET_FLAGS:
            return False
    return True


def _limited(command: str, words: list[str | None]) -> bool:
    if command in ("archive", "bundle", "incoming", "outgoing", "heads", "tip", "shelve"):
        return False  # (their first word is not a file, or they read revisions, not names)
    names = []
    ended = False
    for word in words:
        assert word is not None
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-") and len(word) > 1:
            if word not in _FILE_FLAGS:
                return False
        else:
            names.append(word)
    if command == "grep":
        names = names[1:]  # (its first word is the pattern it searches for)
    return bool(names) and all(name and ":" not in name and not _GLOB & set(name) for name in names)
