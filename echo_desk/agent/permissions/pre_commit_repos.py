"""pre-commit's subcommand that runs hooks from another repository: ``pre-commit try-repo
REPO`` runs the hooks REPO's ``.pre-commit-hooks.yaml`` lists (a ``language: system`` hook is
any command), from a folder or a URL the line names, not from the repository in front of it:
``pre-commit try-repo ../other/hooks x -a`` ran a hook of that folder (proven, pre-commit 3.0
under bash and dash, s223). A rule naming pre-commit (``pre-commit **``) trusts the hooks of
the project's own settings file (judged as code: ``settings_files``), not every repository a
line may name: only a rule naming ``try-repo`` covers it.

Its subcommands that write hook scripts, code git runs at the next commit (outside Echo Desk and
its sandbox): ``pre-commit install`` wrote .git/hooks/pre-commit, ``init-templatedir DIR``
DIR/hooks/pre-commit (proven, pre-commit 3.0 under bash and dash, s235). A rule naming pre-commit
trusts the hooks it runs, not these writes: the write rules judge them. Where ``install`` and
``uninstall`` write is git's hooks folder, found from the repository's top (a linked worktree's
is the main repository's, beside or outside the workspace): only known when they run, so they ask.

Its subcommands that rewrite its settings file: ``autoupdate`` (the ``rev`` of each hook
repository, fetched, whose hooks the next ``pre-commit run`` runs) and ``migrate-config``. Run in
src/, each rewrote the .pre-commit-config.yaml of the repository's top, where pre-commit changes
folder first; ``-c FILE`` the file named, from the folder it runs in (proven, pre-commit 3.0 under
bash and dash, s240). The write rules judge the file ``-c`` names; the top's is only known when
they run, so they ask.

Its subcommands that empty its store, the cache of hook repositories in the home folder:
``clean`` deleted ~/.cache/pre-commit and all below it, ``gc`` the repositories no settings file
uses any more and rewrote db.db there (nothing else opened for writing; strace, pre-commit 3.0,
bash and dash, s254). The write rules judge that folder, as pre-commit finds it:
``$PRE_COMMIT_HOME``, else ``$XDG_CACHE_HOME/pre-commit``, else ``~/.cache/pre-commit``.
"""

from __future__ import annotations

import os

from echo_desk.agent.permissions import line_environment, long_prefixes
from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["pre_commit_reading"]

_OTHER_REPOSITORY = "try-repo"
_UNKNOWN = Flag(frozenset(), "", None)  # a word only known when the line runs
#: Subcommands that write (or remove) the hook scripts of git's hooks folder.
_HOOKS_FOLDER = frozenset({"install", "uninstall"})
_TEMPLATE_FOLDER = "init-templatedir"
#: Subcommands that rewrite the settings file (``-c``'s, else the repository top's).
_REWRITES_SETTINGS = frozenset({"autoupdate", "migrate-config"})
#: Subcommands that delete in its store (``_store``).
_EMPTIES_STORE = frozenset({"clean", "gc"})
#: Their other options that take a value (``-j 4``, ``--repo URL``, ``--color never``).
_SETTINGS_VALUED = ("-j", "--jobs", "--repo", "--color")
#: init-templatedir's options that take a value (the hook types and colours are names, not places).
_VALUED = ("-c", "-t", "--config", "--hook-type", "--color")


def pre_commit_reading(argv: Argv, program: str) -> Reading:
    """``pre-commit [-h|-V] SUBCOMMAND …``: argparse takes the first word that is not an
    option as the subcommand, and never a prefix of one."""
    for word in argv[1:]:
        if word is None:
            return Reading(program, flags=(_UNKNOWN,), known=False)
        if word.startswith("-"):
            continue  # (its own options before a subcommand only print: --help, --version)
        if word == _OTHER_REPOSITORY:
            return Reading(program, flags=(Flag(frozenset({word}), word, Does.RUNS),), known=False)
        if word in _HOOKS_FOLDER:
            return Reading(program, known=False, written_below=(None,))
        if word == _TEMPLATE_FOLDER:
            return Reading(program, known=False, written_below=_template_folders(argv[argv.index(word) + 1:]))
        if word in _REWRITES_SETTINGS:
            return Reading(program, known=False, written=_settings_files(argv[argv.index(word) + 1:]))
        if word in _EMPTIES_STORE:
            return Reading(program, known=False, written_below=(_store(),))
        break
    return Reading(program, known=False)


def _store() -> str:
    """The folder pre-commit keeps its hook repositories in, in the environment the command runs
    with (pre-commit 3.0's ``store.py``; relative: from where it runs)."""
    own = line_environment.get("PRE_COMMIT_HOME")
    if own:
        return own
    cache = line_environment.get("XDG_CACHE_HOME")
    return os.path.join(cache, "pre-commit") if cache else "~/.cache/pre-commit"


def _settings_files(words: Argv) -> tuple[str | None, ...]:
    """The settings files ``autoupdate`` or ``migrate-config`` rewrites: those ``-c``/``--config``
    name (argparse: glued, after ``=``, any unique beginning of the long option), else the one of
    the repository's top (``None``: only known when it runs), and ``None`` for a word only known
    when it runs, which may be the option."""
    files: list[str | None] = []
    k = 0
    while k < len(words):
        word = words[k]
        following = words[k + 1] if k + 1 < len(words) else None
        if word is None:
            files.append(None)
        elif word == "--":
            break
        elif word == "-c" or (not word.startswith("--") and word.startswith("-c")):
            files.append(following if word == "-c" else word[2:])
            k += 1 if word == "-c" else 0
        elif word.startswith("--") and long_prefixes.named("pre-commit", word, ("--config",)) is not None:
            files.append(word.partition("=")[2] if "=" in word else following)
            k += 0 if "=" in word else 1
        elif word in _SETTINGS_VALUED or (word.startswith("--") and "=" not in word
                                          and long_prefixes.named("pre-commit", word, _SETTINGS_VALUED) is not None):
            k += 1  # (its value is a name, a number or a repository, not the file)
        k += 1
    return tuple(files) or (None,)


def _template_folders(words: Argv) -> tuple[str | None, ...]:
    """The folder ``init-templatedir`` writes its hooks below: its operand (argparse: any unique
    beginning of a long option, ``--conf x``). A word only known when it runs may be it."""
    folders: list[str | None] = []
    value = False
    for k, word in enumerate(words):
        if value and word is not None:
            value = False
        elif word is None:
            folders.append(None)
        elif word == "--":
            folders += words[k + 1:]
            break
        elif word.startswith("-"):
            value = word in _VALUED[:2] or ("=" not in word and long_prefixes.named("pre-commit", word, _VALUED[2:]) is not None)
        else:
            folders.append(word)
    return tuple(folders) or (None,)
