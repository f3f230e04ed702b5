"""What hg's hooks run, from every settings file hg reads (``hg_config``: the system's, the
person's, the repository's, ``$HGRCPATH``'s, what they include), whoever may write that file.
A shell hook runs in the repository's top folder (the folder hg runs in without one), so its
words name files there as a command of the line names them from where it runs, and its program
reads its own settings there: with ``[hooks]`` in a settings file the agent cannot write (hg
6.3.2, ``$HGRCPATH`` a scratch file, bash 5.2 and dash 0.5.12, strace, s326), ``hg status`` ran
``sh check.sh`` on a check.sh the agent put at the top, ``make -s -C src lint`` on its
src/Makefile, and ``python:hookmod.run`` imported the hookmod.py it put in the user's
site-packages, while the engine judged only the words holding a ``/``.

So each simple command of a shell hook is judged where it runs as the line's commands are
(``settings_files``: the settings and code it finds there, each word a file there), and a python
hook naming a module (``python:mod.fn``, no file) names the module hg imports: in the user's
site-packages (``$PYTHONPATH``'s folders count for hg already). A hook line the engine cannot
read (a ``cd``, ``eval``, a program known only when it runs, a loop) may run any file below the
folder it runs in; a word known only when it runs (``$HG_NODE``) is not judged as a file. Every hook counts for every hg command: which hook fires at which command is
not judged here. A hook running hg reads the same settings: not followed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions import hg_config

__all__ = ["Hooks", "hooks"]

#: ``[hooks]`` keys that are not hooks (``hook._hookitems``): a hook's priority, its
#: conversion to native paths, and its sub-settings (``name:run-with-plain``).
_NOT_HOOKS = ("priority.", "tonative.")
_PYTHON = "python:"
#: Builtins that run their words as shell code or as a command the engine does not follow.
_RUNS_STRINGS = frozenset({"eval", "source", ".", "exec", "command", "builtin"})


@dataclass(frozen=True)
class Hooks:
    """The hooks of the settings: each simple command of the shell hooks (``commands``, argv as
    the shell splits it, ``None`` a word known only when it runs), the top modules python hooks
    import (``modules``), and whether a hook line is not read here (``unread``)."""

    commands: tuple[tuple[str | None, ...], ...] = ()
    modules: tuple[str, ...] = ()
    unread: bool = False


def hooks(files: Sequence[Path], home: Path | None) -> Hooks | None:
    """The hooks the settings ``files`` (and what they include) set; ``None``: a settings file
    not read (it may set any)."""
    entries = hg_config.all_entries(files, home)
    if entries is None:
        return None
    commands: list[tuple[str | None, ...]] = []
    modules: list[str] = []
    unread = False
    for section, key, value in entries:
        if section != "hooks" or not value or ":" in key or key.startswith(_NOT_HOOKS):
            continue
        if value.startswith(_PYTHON):
            if value.count(":") < 2:  # (python:FILE:FUNCTION names a file: ``hg_config.named``)
                module = value[len(_PYTHON):].strip().rpartition(".")[0]
                modules += [module.split(".")[0]] if module else []
            continue
        read = _shell_commands(value)
        if read is None:
            unread = True
        else:
            commands += read
    return Hooks(tuple(dict.fromkeys(commands)), tuple(dict.fromkeys(modules)), unread)


def _shell_commands(line: str) -> list[tuple[str | None, ...]] | None:
    """The simple commands of a shell hook, those of its substitutions too (``None``: a hook the
    engine does not read: a ``cd``, a program word only known when it runs, a line that runs a
    string, a construct that is not a plain command). A word only known when it runs is left
    to the rest (``hg log -r $HG_NODE``: what hg gives, not a file)."""
    from echo_desk.agent.permissions.model import Opaque
    from echo_desk.agent.permissions.shell import analyse

    analysis = analyse(line)
    read = (None, Opaque.DYNAMIC_ARGUMENT)
    if analysis.opaque not in read or any(c.opaque not in read for c in analysis.commands) \
            or analysis.changes_directory:
        return None
    found = [tuple(word.value for word in command.argv) for command in analysis.commands]
    if any(not argv or argv[0] is None or argv[0] in _RUNS_STRINGS for argv in found):
        return None
    return found
