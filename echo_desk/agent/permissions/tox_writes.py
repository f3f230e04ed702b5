"""Where tox writes besides the project: the folder ``--workdir`` (or ``TOX_WORK_DIR``) names,
where it builds its environments instead of ``.tox`` beside tox.ini, and the file
``--result-json`` names. A rule naming tox (``tox **``) trusts it to build in the project in
front of it, not wherever the line says: ``tox --workdir ../other/wd`` created a virtualenv there
(proven, tox 4.67 under bash and dash, s223). The write rules judge them, as they judge cargo's
``--target-dir`` (``build_tools``); a relative one is the folder tox runs in's (not tox.ini's).
"""

from __future__ import annotations

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.reading import Argv, Reading
from echo_desk.agent.permissions.runner_options import tox_flags

__all__ = ["tox_reading"]

_WORKDIR = "--workdir"
#: The file its results go to (``tox run --result-json ../other/r.json`` wrote there, proven as
#: above): judged by the write rules, as ``sort -o``'s is.
_RESULTS = "--result-json"
#: tox takes any unique prefix of a long option (argparse): no other option starts with ``--w``,
#: and ``--re`` is also ``--recreate``'s.
_SHORTEST = {_WORKDIR: len("--w"), _RESULTS: len("--res")}
#: The variable tox reads for ``--workdir`` when the line does not give it (``TOX_`` and the
#: option's name: tox 4 reads every option so).
_VARIABLE = "TOX_WORK_DIR"


def tox_reading(argv: Argv, program: str) -> Reading:
    """``tox [options] [SUBCOMMAND] [options] [-- posargs]``: the folder its environments go to,
    and the file ``--result-json`` writes. A word only known when it runs (``None``) may be
    either, and stands for a place the write rules cannot see."""
    named: dict[str, str | None] = {}
    words = argv[1:]
    for k, word in enumerate(words):
        if word is None:
            # (where tox takes the last of an option, a later one still names the place)
            named[_WORKDIR] = named[_RESULTS] = None
            continue
        if word == "--":
            break  # the rest are the commands' positional arguments
        name, eq, value = word.partition("=")
        option = next((o for o, shortest in _SHORTEST.items() if len(name) >= shortest and o.startswith(name)), None)
        if option is not None:
            # (no value: tox refuses the line; an empty one is the folder it runs in)
            named[option] = (value or ".") if eq else (words[k + 1] if k + 1 < len(words) else None)
    if _WORKDIR not in named and (variable := line_environment.get(_VARIABLE)):
        # A leading ~ is bash's to expand after = (dash leaves it): only known when it runs.
        named[_WORKDIR] = None if variable.startswith("~") else variable
    written = (named[_RESULTS],) if _RESULTS in named else ()
    below = (named[_WORKDIR],) if _WORKDIR in named else ()
    # (and the options that run or load what a rule naming tox does not trust: runner_options)
    return Reading(program, known=False, flags=tuple(tox_flags(words)), written=written, written_below=below)
