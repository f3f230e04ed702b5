"""Where ``git config`` writes, for the write rules to judge (``Reading.written``). A settings
file git writes is code the person runs later: ``core.pager`` runs at their next ``git log``,
``core.fsmonitor`` at ``git status``, an alias ``!cmd`` at ``git st``. A rule naming git (``git
**``) trusts git, not every settings file it may write, so each file a writing form writes is
judged as a redirection to it:

- ``--global``: ``~/.gitconfig`` and the file under the folder for settings (git writes
  ``~/.config/git/config`` when it exists and ``~/.gitconfig`` does not), and the file
  ``$GIT_CONFIG_GLOBAL`` names (in the environment the commands inherit from Echo Desk);
- ``--file F`` / ``-f F``: F, from where ``-C`` leads;
- ``--system`` (where git was built to look, or ``$GIT_CONFIG_SYSTEM``), ``--blob``, the
  repository's own file (``--local``, ``--worktree``, no option: a ``.git`` file or
  ``commondir`` may lead anywhere, and a ``.git`` the agent may write already makes every git
  command ask, ``settings_files``), and a word only known when the line runs: not known here
  (``None``), so the write rules ask.

A form that only reads (``--get``, ``--list``, one operand, git 2.46's ``get`` and ``list``)
writes nothing. ``-e`` runs an editor: never covered (``git_options``). Version read: git 2.39,
and the subcommands of git 2.46.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import git_repositories, line_environment
from echo_desk.agent.permissions.options import read_options

Paths = tuple[str | None, ...]

#: Options that make ``git config`` read (git refuses two actions at once; with a writing one
#: too, the command counts as writing).
_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
                    "--list", "-l"})
#: Options that make it write whatever its operands.
_WRITES = frozenset({"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
                     "-e", "--edit"})
#: git 2.46's subcommands of ``git config`` (an older git reads them as a key and refuses them).
_READING_ACTIONS = frozenset({"get", "list"})
_WRITING_ACTIONS = frozenset({"set", "unset", "rename-section", "remove-section", "edit", "replace-all"})
#: The user's settings files ``--global`` may write (as redirections: ``~`` is the home folder).
_GLOBAL_FILES = ("~/.gitconfig", "~/.config/git/config")


def config_written(argv: Sequence[str | None], at: int) -> Paths:
    """The settings files the ``git config`` command ``argv`` (its subcommand at ``at``)
    writes: none for a reading form (see the module doc)."""
    spec = git.SUBCOMMANDS["config"]
    parsed = read_options(argv[at + 1:], spec)
    names = {n for s in parsed.seen if s.option is not None for n in s.option.names}
    operands = [w for _, w in parsed.operands]
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return (None,)  # (an option git may read as a writing action)
    if not names & _WRITES and not _writes(names, operands):
        return ()
    if names & {"--system", "--blob"}:
        return (None,)
    files = [s.value for s in parsed.seen if s.option is not None and "--file" in s.option.names]
    if files:
        return tuple(from_starts(argv, f) for f in files)
    if "--global" in names:
        return global_files()
    return (None,)


def _writes(names: set[str], operands: list[str | None]) -> bool:
    """Whether the operands make ``git config`` (with options ``names``, no writing action)
    write: a key and a value, or git 2.46's writing subcommands."""
    if names & _READS:
        return False
    if not operands:
        return False  # (it prints how to use it)
    if operands[0] in _READING_ACTIONS:
        return False
    if operands[0] is None or operands[0] in _WRITING_ACTIONS:
        return True
    return len(operands) > 1


def from_starts(argv: Sequence[str | None], path: str | None) -> str | None:
    """``path`` as git reads a path it is given (a ``--file`` value): from the folder ``-C``
    leads to (``None``: not known here)."""
    if path is None:
        return None
    if os.path.isabs(path) or path == "~" or path.startswith("~/"):
        return path
    where = git_repositories.folders(argv, [Path(".")])
    if where.unknown or len(where.starts) != 1:
        return None
    return os.path.join(where.starts[0], path)


def global_files() -> tuple[str, ...]:
    """The person's own git settings files, as ``--global`` writes them (``git maintenance
    register`` writes there too: ``git_file_writes``)."""
    return (*_GLOBAL_FILES, *_global_env())


def _global_env() -> tuple[str, ...]:
    """The files the environment the commands inherit from Echo Desk makes ``--global`` write:
    ``$GIT_CONFIG_GLOBAL`` (instead of the home's), ``$XDG_CONFIG_HOME/git/config``."""
    found = []
    named = line_environment.get("GIT_CONFIG_GLOBAL", "")
    if named:
        found.append(named)
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        found.append(os.path.join(xdg, "git", "config"))
    return tuple(found)
