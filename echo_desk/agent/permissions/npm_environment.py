"""The settings npm takes from its environment: every ``npm_config_<name>`` variable (any case:
``NPM_CONFIG_SCRIPT_SHELL``) is the setting ``<name>``, above those of every .npmrc. They weigh
as an .npmrc does: ``script-shell`` runs every script of ``npm test``, ``node-options=--require
F`` loads F into it, ``userconfig``/``globalconfig``/``prefix`` lead to another .npmrc,
``init-module`` runs under ``npm init`` (npm's config docs). The programs that read .npmrc read
them too (npx, pnpm, yarn).

They are read with ``line_environment``: Echo Desk's own environment with what the line gives
the command on top. Which settings name files is npm's to grow, so every word of a value that
holds a ``/`` (but a URL) counts as a path, the file and every file below it (a folder:
``prefix``, ``cache``); a value npm may expand (``${HOME}``) names any file (``None``).

But for npm itself (and npx, which is npm): ``local-prefix`` and ``global-prefix`` are what npm
writes into the environment of the scripts it runs (its project folder, its global folder), not
settings it takes: it finds its project by walking up from where it runs (or ``--prefix``) and
its global folder from ``prefix``. So Echo Desk started from an npm script (``npm start``) does
not make every npm command ask. Proven, npm 11.19 under bash and dash: with
``npm_config_local_prefix`` and ``npm_config_global_prefix`` naming another folder holding a
package.json and an .npmrc, ``npm test`` ran the project's own test and opened nothing there.
pnpm and yarn are not installed here: for them these count as any other.
"""

from __future__ import annotations

import re

from echo_desk.agent.permissions import line_environment

__all__ = ["paths"]

_PREFIX = "npm_config_"
#: What separates the paths in a value (``--require out/x.js``, a list, ``name=value``).
_WORD = re.compile(r"[^\s,;=\"']+")


#: The settings npm writes for its scripts and does not read back (``internalEnv`` of its config).
_WRITTEN_FOR_SCRIPTS = frozenset({"local-prefix", "global-prefix"})
_NPM = frozenset({"npm", "npx"})


def paths(program: str) -> list[str] | None:
    """The paths the environment's npm settings name for ``program`` (``None``: a value not
    read here)."""
    found: list[str] = []
    for name in line_environment.names():
        if not name.lower().startswith(_PREFIX):
            continue
        if program in _NPM and _setting(name) in _WRITTEN_FOR_SCRIPTS:
            continue
        value = line_environment.get(name)
        if "$" in value:
            return None  # (npm expands `${NAME}` in a setting's value)
        found += [w for w in _WORD.findall(value) if "/" in w and "://" not in w]
    return found


def _setting(name: str) -> str:
    """The setting a variable is, as npm reads it: after the prefix, each ``_`` but a first
    one a ``-``, in lower case (``NPM_CONFIG_LOCAL_PREFIX`` is ``local-prefix``)."""
    key = name[len(_PREFIX):]
    if key.startswith("//"):
        return key
    return (key[:1] + key[1:].replace("_", "-")).lower()
