"""What bundled hg extensions that wrap hg's own commands write outside the repository: the
user cache of largefiles and of lfs. With ``[extensions] largefiles =`` in ~/.hgrc, ``hg add
--large f && hg commit -m x`` wrote f's content to ``~/.cache/largefiles/<sha1>`` (hg 6.3,
scratch home, bash and dash, s309) while the engine judged ``hg add`` and ``hg commit`` as hg
without the extension: writing nothing outside the repository. The extension fetches into the
same cache at ``update``, ``pull``, ``clone``, ``merge``, ``revert``, ``cat``…: with it enabled,
every hg command counts as writing anything below that folder (``largefiles.usercache``, else
``$XDG_CACHE_HOME/largefiles``, else ``~/.cache/largefiles``, as ``lfutil._usercachedir`` finds
it; lfs the same with ``lfs``), for the write rules to judge. A cache folder not known here (a
relative or ``$`` setting, settings not read) counts as any folder.

But ``hg status`` (``hg st``) with largefiles compares each large file by its hash and wrote
nothing outside the repository's ``.hg`` (strace of openat, rename, unlink, mkdir, link: clean,
modified at the same size, deleted, missing from the store, ``--rev``, ``--change``, ``-A``,
``-S``; hg 6.3.2, scratch home, bash 5.2 and dash 0.5.12, s326): it is not judged as writing the
largefiles cache. lfs may fetch a file's content to compare it, so it still counts there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_aliases, line_environment
from echo_desk.agent.permissions.hg_commands import command_at

__all__ = ["CACHING", "cache_folders"]

Args = tuple[str | None, ...]

#: Bundled extensions that keep a cache in the user's home, each named in ``[extensions]`` as
#: itself or with hg's package before it.
CACHING = frozenset({"largefiles", "lfs"})
#: The commands that leave the largefiles cache alone (hg's own names of status, as written:
#: a prefix may name a command an extension gives).
_LARGEFILES_READERS = frozenset({"status", "st"})


def cache_folders(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None = None) -> list[str | None]:
    """The folders below which ``hg`` (started as ``runner``) with ``args`` (after its name), run
    in any of ``folders``, may write through an extension of ``CACHING`` the settings enable
    (``None``: one not known here)."""
    entries = hg_aliases.settings(args, folders, home, runner)
    if entries is None:
        return [None]  # (the settings are not read: any extension may be enabled)
    enabled = {_extension(key) for section, key, value in entries
               if section == "extensions" and not value.startswith("!")} & CACHING
    if _runs_only(args, folders, home, runner, _LARGEFILES_READERS):
        enabled.discard("largefiles")
    found: list[str | None] = []
    for name in sorted(enabled):
        configured = [value for section, key, value in entries if section == name and key == "usercache"]
        found.append(_folder(configured[-1], home) if configured else _default(name, home))
    return found


def _extension(key: str) -> str:
    """The extension an ``[extensions]`` key names (``hgext.largefiles``, ``hgext/largefiles``)."""
    return key.replace("/", ".").removeprefix("hgext.")


def _folder(value: str, home: Path | None) -> str | None:
    """A ``usercache`` setting as hg reads it: ``~`` is the home; a relative path (from the
    settings file's folder) or a ``$`` is not read here."""
    if "$" in value:
        return None
    if value == "~" or value.startswith("~/"):
        return None if home is None else str(home) + value[1:]
    return value if os.path.isabs(value) else None


def _default(name: str, home: Path | None) -> str | None:
    xdg = line_environment.get("XDG_CACHE_HOME", "")
    if xdg:
        return os.path.join(xdg, name) if os.path.isabs(xdg) else None
    return None if home is None else str(home / ".cache" / name)


def _runs_only(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None,
               commands: frozenset[str]) -> bool:
    """Whether every command ``hg`` with ``args`` may run, its aliases followed
    (``hg_aliases.expansions``), is named by one of the words ``commands``."""
    at = command_at(("hg", *args))
    runs = hg_aliases.expansions(args, folders, home, runner)
    if at is None or at > len(args) or runs is None:
        return False
    return all(at - 1 < len(words) and words[at - 1] in commands for words in runs)
