"""Where ``npm config set`` writes, for the write rules to judge (``Reading.written``). npm's
settings file is code the person runs later: ``script-shell`` is the program every ``npm test``
and ``npm run`` runs the script with, ``node-options``, ``git``, ``editor`` name programs too. A
rule naming npm (``npm **``) trusts npm, not every settings file it may write, so the file a
writing form writes is judged as a redirection to it:

- the user's file (no ``--location``, ``--location user``): ``~/.npmrc``, or the file
  ``$npm_config_userconfig`` names (in the environment the commands inherit from Echo Desk);
  ``--userconfig F`` is never covered anyway (``program_options.NPM``);
- the project's (``--location project``: the nearest folder holding a package.json or
  node_modules, as npm finds it) and the global one (``-g``, ``--location global``: under npm's
  prefix), ``config edit`` (an editor on the file), ``config fix``, a location only known when
  the line runs, and pnpm's and yarn's own files: not known here (``None``), so it asks.

The reading forms (``npm config get``/``list``/``ls``, ``npm get``) write nothing. Version read:
npm 11 (``npm set`` is ``npm config set``; ``npm c`` is ``npm config``).
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

Paths = tuple[str | None, ...]

_CONFIG = frozenset({"config", "c"})
#: ``npm config`` actions that only read.
_READING_ACTIONS = frozenset({"get", "list", "ls"})
#: Actions that write the file at a place the engine knows (``edit`` runs an editor, ``fix``
#: rewrites every file npm reads: not placed).
_PLACED_ACTIONS = frozenset({"set", "delete", "rm", "del"})


def written(argv: Sequence[str | None], program: str) -> Paths:
    """The settings files the package manager command ``argv`` (npm, pnpm, yarn) writes."""
    parsed = read_options(argv[1:], table.NPM)
    words = [w for _, w in parsed.operands]
    if not words:
        return ()
    if words[0] is None:
        return (None,)  # (a subcommand only known when the line runs)
    if words[0] == "set":
        action: str | None = "set"
    elif words[0] in _CONFIG:
        if len(words) < 2:
            return ()
        action = words[1]
    else:
        return ()
    if action in _READING_ACTIONS:
        return ()
    if program != "npm" or action not in _PLACED_ACTIONS:
        return (None,)
    names = {n for s in parsed.seen if s.option is not None for n in s.option.names}
    locations = [s.value for s in parsed.seen if s.option is not None and "--location" in s.option.names]
    if "--global" in names or any(where != "user" for where in locations):
        return (None,)
    named = line_environment.get("npm_config_userconfig") or line_environment.get("NPM_CONFIG_USERCONFIG")
    return ("~/.npmrc", *((named,) if named else ()))
