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
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_aliases, line_environment

__all__ = ["CACHING", "cache_folders"]

Args = tuple[str | None, ...]

#: Bundled extensions that keep a cache in the user's home, each named in ``[extensions]`` as
#: itself or with hg's package before it.
CACHING = frozenset({"largefiles", "lfs"})


def cache_folders(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None = None) -> list[str | None]:
    """The folders below which ``hg`` (started as ``runner``) with ``args`` (after its name), run
    in any of ``folders``, may write through an extension of ``CACHING`` the settings enable
    (``None``: one not known here)."""
    entries = hg_aliases.settings(args, folders, home, runner)
    if entries is None:
        return [None]  # (the settings are not read: any extension may be enabled)
    enabled = {_extension(key) for section, key, value in entries
               if section == "extensions" and not value.startswith("!")} & CACHING
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
