"""Variables a program reads as data only, program by program: a ``NAME=value`` given to that
program (before it on the line, or through ``env``) changes what its own code decides, never
which code runs, which file or folder it opens or writes, or which options it takes. Such an
assignment counts as harmless as the inert ones of ``shell.INERT_ASSIGNMENTS`` do, for that
program only, with a value of the same harmless characters (``shell.inert_value``: no ``/``, no
``=``, no blank, no expansion).

A name is listed only when it is proven for the program: with strace, under bash and dash, in a
scratch folder with a scratch home, the assignment ran the same programs and opened and wrote the
same files as the line without it. Any other name asks unless a rule names the assignment
(``NODE_OPTIONS=* npm test **``); a variable that names a file, a folder, a program, a shell or
options (``*PATH*``, ``LD_*``, ``*_OPTIONS``, ``BASH_ENV``, ``GIT_*``, ``npm_config_*``, where
poetry keeps its environments) is never listed.
"""

from __future__ import annotations

__all__ = ["DATA_VARIABLES", "reads_as_data"]

#: The project's mode for node and npm, which runs the project's scripts. node does not read it
#: (``NODE_ENV=test node --test`` opened and ran the same as ``node --test``); npm reads it as
#: the default of ``--omit=dev`` (which packages ``npm install`` leaves out, not where it
#: writes): ``NODE_ENV=test npm test`` and ``NODE_ENV=production npm test`` ran the same
#: programs (``sh -c 'node --test'``, node on each test file) and wrote the same files as ``npm
#: test`` (npm 11.19, node 20; s269). The project's own code may read it, as it reads anything of
#: its environment: that code is what the rule for the program runs.
_NODE_MODE = frozenset({"NODE_ENV"})

DATA_VARIABLES: dict[str, frozenset[str]] = {
    "node": _NODE_MODE,
    "npm": _NODE_MODE,
}


def reads_as_data(program: str | None, name: str) -> bool:
    """Whether ``program`` (the word that runs it, as written: a path is not the program) reads
    the variable ``name`` as data only."""
    return program is not None and name in DATA_VARIABLES.get(program, frozenset())
