"""Where tox builds its environments: the folder ``--workdir`` (or ``TOX_WORK_DIR``) names
instead of ``.tox`` beside tox.ini. A rule naming tox (``tox **``) trusts it to build them in the
project in front of it, not in any folder the line names: ``tox --workdir ../other/wd`` created
a virtualenv there (proven, tox 4.67 under bash and dash, s223). The write rules judge that
folder, as they judge cargo's ``--target-dir`` (``build_tools``); a relative one is the folder
tox runs in's (not tox.ini's)."""

from __future__ import annotations

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["tox_reading"]

_WORKDIR = "--workdir"
#: tox takes any unique prefix of a long option (argparse): no other option starts with ``--w``.
_SHORTEST_PREFIX = len("--w")
#: The variable tox reads for ``--workdir`` when the line does not give it (``TOX_`` and the
#: option's name: tox 4 reads every option so).
_VARIABLE = "TOX_WORK_DIR"
_UNKNOWN = Flag(frozenset(), "", None)  # a word only known when the line runs


def tox_reading(argv: Argv, program: str) -> Reading:
    """``tox [options] [SUBCOMMAND] [options] [-- posargs]``: the folder its environments go to."""
    words = argv[1:]
    for k, word in enumerate(words):
        if word is None:
            return Reading(program, flags=(_UNKNOWN,), known=False)
        if word == "--":
            break  # the rest are the commands' positional arguments
        name, eq, value = word.partition("=")
        if len(name) >= _SHORTEST_PREFIX and _WORKDIR.startswith(name):
            named = value if eq else (words[k + 1] if k + 1 < len(words) else None)
            # An empty value is the folder tox runs in; None (a word only known when it runs, or
            # none at all) a folder the write rules cannot see.
            return Reading(program, known=False, written_below=((named or ".") if named is not None else None,))
    named = line_environment.get(_VARIABLE)
    if not named:
        return Reading(program, known=False)
    # A leading ~ is bash's to expand after = (dash leaves it): only known when it runs.
    return Reading(program, known=False, written_below=(None if named.startswith("~") else named,))
