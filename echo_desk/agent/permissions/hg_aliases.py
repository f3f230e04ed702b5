"""What an hg command word runs when the settings give it an ``[alias]``: ``[alias] lp = log -p``
in ~/.hgrc or .hg/hgrc, ``hg --config alias.x=files x``. Under ``hg **`` with
``@workspace/src/**`` read-denied, ``hg lp`` printed src/main.py's ``KEY=secret`` and ``hg
--config alias.x=files x`` its name (hg 6.3, bash and dash, s281) while the engine judged a word
naming no reading command as reading nothing.

hg (6.3, ``dispatch.cmdalias``) takes an alias over its own command of the same name, and a word
that is a prefix of an alias's name may name it (``hg_config.redefined``). An alias the engine
reads is judged as its words (split as a POSIX shell splits them) in the word's place, and the
word as it is besides; one it cannot read (``!…`` runs a shell line, ``$1`` takes the line's
words, a ``[defaults]`` of the command, a settings file not read) gives ``None``: the caller
counts it as reading the whole repository.

``--cwd D`` and ``-R D`` (anywhere before ``--``: hg reads them before the command's own) make
hg read the settings of another repository: ``--cwd`` changes into D and finds it from there,
as ``cd D`` would; ``-R`` takes D itself (hg 6.3 looks no further up: ``hg -R . log`` in a folder
below the top stops) and reads it from where ``--cwd`` leads. Those repositories' settings are
read as well as the ones where the line runs (more settings read is only more asked). A ``-R``
word hg may take for something other than a folder (a ``[paths]`` name, a URL, ``~`` or ``$``
it expands), a ``--cwd`` or ``-R`` known only when the line runs, or one given twice: ``None``
(s309: ``hg --cwd out log`` beside a read-denied ``src/`` was asked while ``cd out && hg log``
was not).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import hg_config
from echo_desk.agent.permissions.hg_commands import GLOBAL, SCHEME
from echo_desk.agent.permissions.options import OptionSet, Parsed, read_options

__all__ = ["elsewhere", "expansions", "settings"]

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
    """Every setting hg reads run in any of ``folders``, and in the repositories ``--cwd`` and
    ``-R`` lead to, the line's ``--config`` last (``None``: one not read, or a repository the
    line names that is not known here)."""
    line: list[Entry] = []
    parsed = read_options(args, _GLOBAL)
    for seen in parsed.seen:
        assert seen.option is not None
        if "--config" in seen.option.names:
            if seen.value is None:
                return None
            key, equals, value = seen.value.partition("=")
            section, dot, name = key.partition(".")
            if not equals or not dot:
                return None
            line.append((section.lower(), name, value))
    moved = _moved(args, parsed)
    if moved is None:
        return None
    cwd, repository = moved
    here = list(dict.fromkeys([*folders, *(Path(os.path.join(f, cwd)) for f in folders if cwd is not None)]))
    roots = [root for root in dict.fromkeys(_root(folder) for folder in here) if root is not None]
    if repository is not None:
        roots += [Path(os.path.normpath(os.path.join(f, repository))) for f in here]
    sources, unknown = hg_config.shared_sources(roots, here)
    if unknown:
        return None
    files = hg_config.settings_files(home, roots, sources, hg_config.system_folders(runner, here))
    read = hg_config.all_entries(files, home)
    if read is None:
        return None
    if repository is not None and not _names_a_folder(repository, read):
        return None
    return [*((s, k, v) for s, k, v in read), *line]


def elsewhere(args: Args) -> bool:
    """Whether the hg line ``args`` (after its name) names a repository by ``--cwd`` or ``-R``
    (or may: one not read here)."""
    return _moved(args, read_options(args, _GLOBAL)) != (None, None)


def _moved(args: Args, parsed: Parsed) -> tuple[str | None, str | None] | None:
    """The values of ``--cwd`` and of ``-R`` on the hg line ``args``, read as hg reads them
    before its command (``dispatch._earlyparseopts``: anywhere before ``--``; ``--cwd`` whole,
    ``--repository`` as itself or ``--repo``, ``-R`` with its value joined or next). ``None``:
    not known here (given twice, a value known only when the line runs)."""
    found: dict[str, list[str | None]] = {"--cwd": [], "-R": []}
    for seen in parsed.seen:
        assert seen.option is not None
        names = set(seen.option.names)
        if names & {"-R", "--repository", "--cwd"}:
            found["--cwd" if "--cwd" in names else "-R"].append(seen.value)
    rest = args[parsed.rest:] if parsed.rest is not None else ()
    for k, word in enumerate(rest):
        if word == "--":
            break
        if word is None or not word.startswith("-"):
            continue
        name, equals, value = word.partition("=")
        following = rest[k + 1] if k + 1 < len(rest) else None
        if name.startswith("--") and len(name) > 3 and ("--cwd".startswith(name) or "--repository".startswith(name)):
            found["--cwd" if "--cwd".startswith(name) else "-R"].append(value if equals else following)
        elif word.startswith("-R"):
            found["-R"].append(word[2:] or following)
    if any(len(values) > 1 or None in values for values in found.values()):
        return None
    return (found["--cwd"] or [None])[0], (found["-R"] or [None])[0]


def _names_a_folder(word: str, entries: Sequence[Entry]) -> bool:
    """Whether hg takes the ``-R`` word ``word`` for the folder it names as written: not a
    ``[paths]`` name of the settings (hg takes that path), a URL, nor a ``~`` or ``$`` it expands."""
    return not (word.startswith("~") or "$" in word or SCHEME.match(word)
                or any(section == "paths" and key.partition(":")[0] == word for section, key, _ in entries))


def _root(folder: Path) -> Path | None:
    return next((f for f in (folder, *folder.parents) if (f / ".hg").is_dir()), None)
