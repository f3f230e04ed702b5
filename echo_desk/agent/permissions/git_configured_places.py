"""The places git writes or reads because its settings say so, while no word of the line names
them: folders written anywhere below, for the write rules (``settings_files.written_folders``),
and repositories read, for the read rules (``shell_verdict``, as the words of the line). A rule
naming git (``git **``) trusts git, not every place its settings lead it to (git 2.39.5, bash
and dash, strace, s325):

- ``git push origin main`` with ``remote.origin.url = ../remote.git`` ran ``git-receive-pack
  '../remote.git'``, which created ``../remote.git/refs/heads/main`` outside the agent's
  ``out/``; so did ``remote.origin.pushurl = ../other.git`` beside a network ``url``, and
  ``url.../other.git.pushInsteadOf`` rewriting that network URL (``git send-pack`` takes no
  remote's name: ``fatal: 'origin' does not appear to be a git repository``). ``git_file_writes``
  judges a path the line gives (s301); here the configured remotes the command may reach (the
  one it names, its group's, or with none named the branch's, the push default's and every
  configured one) are read from the settings git reads (``git_config.entries``) as
  ``git_repositories`` reads them, and each local one is judged as a folder written anywhere
  below (the repository, and its worktree where its own settings say
  ``receive.denyCurrentBranch = updateInstead``). A remote that is the repository itself
  (``branch.x.remote = .``) is git's own folder;
- ``git format-patch -1`` with ``format.outputDirectory = ../pwned`` created
  ``../pwned/0001-init.patch``, relative to the folder it runs in (``cd out && git format-patch
  -1`` wrote ``pwned/``); ``-o`` and ``--stdout`` win over the setting. git does not expand a
  ``~`` there: both readings count;
- ``git fetch sec`` with ``remote.sec.url = ../secret.git`` ran ``git-upload-pack`` there, which
  read that repository's objects into the workspace's (``git show FETCH_HEAD:key.txt`` then
  printed them), while ``git fetch ../secret.git`` asked beside a read deny of it: the local
  repositories a fetch, pull, clone, ls-remote, ``remote update``/``show`` or ``archive
  --remote`` reaches through the settings are judged as if the line named them.

Settings the engine cannot read (a file it cannot parse, an include it does not follow), or a
folder git runs in known only when the line runs, make the place not known (``None``): the rules
ask. What a remote helper (``x::…``) or a network URL reaches is not a place on this
machine. Version read: git 2.39's sources (``builtin/log.c``, ``transport.c``, ``remote.c``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_config, git_file_writes, git_index, git_repositories
from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions.options import read_options

Entries = list[tuple[str, str | None, str, str]]


def written(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[str | None]:
    """The folders the git command ``argv``, run from any of ``cwds``, writes anywhere below
    because its settings say where (see the module doc); ``None``: one not known here."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None:
        return []
    at = 1 + parsed.rest
    sub = argv[at]
    if sub != "push" and not (
            sub == "format-patch" and git_file_writes.written(argv, at).below):
        return []
    where = git_repositories.folders(argv, cwds)
    if where.unknown:
        return [None]
    found: list[str | None] = []
    for root, git_dir, start in _repositories(where):
        entries = git_config.entries(git_dir, home)
        if entries is None:
            return [None]
        if sub == "format-patch":
            found += _patch_folders(entries, start, home)
        else:
            found += _other_ends(argv, entries, start, home, {p for p in (root, git_dir) if p is not None})
    return list(dict.fromkeys(found))


def _repositories(where: git_repositories.Folders) -> list[tuple[Path | None, Path | None, Path]]:
    """Each repository the command works on (worktree, repository folder; ``None``: none found,
    only the person's and the system's settings count) with the folder it runs in."""
    if where.named:
        return [(n.root, n.git_dir, start) for n in where.named for start in where.starts]
    found: list[tuple[Path | None, Path | None, Path]] = []
    for start in where.starts:
        roots = git_index.repository_roots(start)
        found += [(root, git_index.git_dir_of(root), start) for root in roots] or [(None, None, start)]
    return found


def _patch_folders(entries: Entries, start: Path, home: Path | None) -> list[str | None]:
    """The folders ``format.outputDirectory`` names (relative: to the folder git runs in)."""
    found: list[str | None] = []
    for section, _, key, value in entries:
        if section != "format" or key != "outputdirectory":
            continue
        found.append(os.path.normpath(start / value))
        if (value == "~" or value.startswith("~/")) and home is not None:
            found.append(os.path.normpath(home / value[2:]))
    return found


def _other_ends(argv: Sequence[str | None], entries: Entries, start: Path, home: Path | None,
            own: set[Path]) -> list[str | None]:
    """The local repositories (each as git may find it: ``r`` and ``r.git``) the configured
    remotes of ``entries`` make the other end of the git command ``argv`` run in ``start`` (the
    repository ``own`` itself aside)."""
    known = git_repositories.remotes(entries)
    urls = git_repositories.other_urls(argv, known)
    if urls is None:
        return [None]
    configured = {u for values in known.urls.values() for u in values}
    bases = tuple(base for base, _ in known.rewrites)
    found: list[str | None] = []
    for url in urls:
        if url not in configured and not url.startswith(bases):
            continue  # (a word of the line: ``git_file_writes`` judges it)
        path = git_repositories.local_path(url)
        if path is None:
            continue
        if path == "":
            return [None]
        place = _placed(path, start, home)
        if place is None:
            return [None]
        if place == start or place in own or place / ".git" in own:
            continue  # (the repository itself: git's own folder)
        found += [str(place), f"{place}.git"]
    return found


def _placed(path: str, start: Path, home: Path | None) -> Path | None:
    """Where the repository path of a URL is: git's receive-pack and upload-pack expand a leading
    ``~/`` to the home folder (``enter_repo``); another user's ``~name``: not known here."""
    if path == "~" or path.startswith("~/"):
        return None if home is None else Path(os.path.normpath(home / path[2:]))
    if path.startswith("~"):
        return None
    return Path(os.path.normpath(start / path))


#: The subcommands that read the repository at the other end (``git_repositories.other_urls``
#: reads their operands; ``remote`` only in the actions that reach one).
_READING = frozenset({"fetch", "pull", "clone", "ls-remote", "remote", "archive"})


def read(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[str] | None:
    """The local repositories the git command ``argv``, run from any of ``cwds``, reads because
    its settings make them its other end (see the module doc); ``None``: one not known here."""
    parsed = read_options(argv[1:], git.GLOBAL)
    if parsed.rest is None or argv[1 + parsed.rest] not in _READING:
        return []
    where = git_repositories.folders(argv, cwds)
    if where.unknown:
        return None
    found: list[str] = []
    for root, git_dir, start in _repositories(where):
        entries = git_config.entries(git_dir, home)
        places = None if entries is None else _other_ends(argv, entries, start, home,
                                                       {p for p in (root, git_dir) if p is not None})
        if places is None or None in places:
            return None
        found += [p for p in places if p is not None]
    return list(dict.fromkeys(found))
