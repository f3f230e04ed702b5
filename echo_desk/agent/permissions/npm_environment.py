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
"""

from __future__ import annotations

import re

from echo_desk.agent.permissions import line_environment

__all__ = ["paths"]

_PREFIX = "npm_config_"
#: What separates the paths in a value (``--require out/x.js``, a list, ``name=value``).
_WORD = re.compile(r"[^\s,;=\"']+")


def paths() -> list[str] | None:
    """The paths the environment's npm settings name (``None``: a value not read here)."""
    found: list[str] = []
    for name in line_environment.names():
        if not name.lower().startswith(_PREFIX):
            continue
        value = line_environment.get(name)
        if "$" in value:
            return None  # (npm expands `${NAME}` in a setting's value)
        found += [w for w in _WORD.findall(value) if "/" in w and "://" not in w]
    return found
