"""What an hg command word runs when the settings give it an ``[alias]``: ``[alias] lp = log -p``
in ~/.hgrc or .hg/hgrc, ``hg --config alias.x=files x``. Under ``hg **`` with
``@workspace/src/**`` read-denied, ``hg lp`` printed src/main.py's ``KEY=secret`` and ``hg
--config alias.x=files x`` its name (hg 6.3, bash and dash, s281) while the engine judged a word
naming no reading command as reading nothing.

hg (6.3, ``dispatch.cmdalias``) takes an alias over its own command of the same name, and a word
that is a prefix of an alias's name may name it (``hg_config.redefined``). An alias the engine
reads is judged as its words (split as a POSIX shell splits them) in the word's place, and the
word as it is besides; one it cannot read (``!…`` runs a shell line, ``$1`` takes the line's
words, a ``[defaults]`` of the command, a settings file not read, a repository ``-R`` or
``--cwd`` names) gives ``None``: the caller counts it as reading the whole repository.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_config
from echo_desk.agent.permissions.hg_commands import GLOBAL
from echo_desk.agent.permissions.options import OptionSet, read_options

__all__ = ["expansions", "settings"]

Args = tuple[str | None, ...]
Entry = tuple[str, str, str]
#: hg stops an alias that names itself; the engine stops following sooner than that.
_DEPTH = 10
_GLOBAL = OptionSet(GLOBAL, permute=False)


def expansions(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None = None) -> list[Args] | None:
    """The words hg may run for ``hg`` (started as ``runner``) with ``args`` (after its name) in
    any of ``folders``: ``args`` itself, and each alias its command word may name, replaced.
    ``None``: what it runs is not known here."""
    parsed = read_options(args, _GLOBAL)
    if parsed.dynamic or any(seen.option is None for seen in parsed.seen):
        return None
    if parsed.rest is None:
        return [args]
    entries = settings(args, folders, home, runner)
    if entries is None:
        return None
    at = parsed.rest
    found: list[Args] = []
    todo: list[tuple[Args, int]] = [(args, 0)]
    while todo:
        words, depth = todo.pop()
        word = words[at] if at < len(words) else None
        if word is None or depth > _DEPTH:
            return None
        found.append(words)
        named = [v for s, k, v in entries if s == "alias" and _names(word, k.partition(":")[0])]
        if any(s == "defaults" and v and any(n.startswith(word) for n in (k, *hg_config.SHORT_NAMES.get(k, ())))
               for s, k, v in entries):
            return None  # (words hg adds to the command's: not read here)
        for value in named:
            split = _split(value)
            if split is None:
                return None
            todo.append(((*words[:at], *split, *words[at + 1:]), depth + 1))
    return found


def _names(word: str, name: str) -> bool:
    """Whether the command word ``word`` may name ``name`` (``hg_config.redefined``): itself,
    or a name it is a prefix of, unless it is one of hg's own short names (``st``)."""
    return name == word or (word not in hg_config.SHORT_WORDS and name.startswith(word))


def _split(value: str) -> tuple[str, ...] | None:
    if value.startswith("!") or "$" in value:
        return None
    try:
        words = tuple(shlex.split(value))
    except ValueError:
        return None
    return words or None


def settings(args: Args, folders: Sequence[Path], home: Path | None, runner: str | None) -> list[Entry] | None:
    """Every setting hg reads run in any of ``folders``, the line's ``--config`` last (``None``:
    one not read, or a repository the line names elsewhere)."""
    line: list[Entry] = []
    for seen in read_options(args, _GLOBAL).seen:
        assert seen.option is not None
        names = set(seen.option.names)
        if names & {"-R", "--repository", "--cwd"}:
            return None
        if "--config" in names:
            if seen.value is None:
                return None
            key, equals, value = seen.value.partition("=")
            section, dot, name = key.partition(".")
            if not equals or not dot:
                return None
            line.append((section.lower(), name, value))
    roots = [root for root in dict.fromkeys(_root(folder) for folder in folders) if root is not None]
    sources, unknown = hg_config.shared_sources(roots, folders)
    if unknown:
        return None
    files = hg_config.settings_files(home, roots, sources, hg_config.system_folders(runner, folders))
    read = hg_config.all_entries(files, home)
    return None if read is None else [*((s, k, v) for s, k, v in read), *line]


def _root(folder: Path) -> Path | None:
    return next((f for f in (folder, *folder.parents) if (f / ".hg").is_dir()), None)
