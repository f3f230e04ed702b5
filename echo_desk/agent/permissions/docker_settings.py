"""docker's settings folder, and whether a docker command may run ssh.

Every docker command reads its settings folder (``--config DIR``, else ``$DOCKER_CONFIG``, else
``~/.docker``; variables as the command gets them, ``line_environment``): ``config.json``'s ``credsStore`` and ``credHelpers`` name the program docker runs
for a registry's password (``docker-credential-NAME``, a path from the folder docker runs in when
NAME holds a slash), ``cli-plugins/docker-NAME`` runs as docker's own ``NAME`` command (``docker
compose``, ``docker buildx``), and ``contexts/`` holds the hosts ``currentContext`` names. Proven
with docker 28.2 under bash and dash: ``docker --config out pull 127.0.0.1:1/x`` ran the helper
``out/config.json`` named, ``docker --config out compose version`` ran
``out/cli-plugins/docker-compose``. Every file below the folder counts.

A host ``ssh://…`` (``-H``, ``$DOCKER_HOST``, or a context's) makes docker run ``ssh … docker
system dial-stdio``, and ssh runs what its own settings say (``ProxyCommand``): a host other than a
local socket or TCP, a word known only when the line runs, or a context other than ``default``
(whose host is not read here) counts as ssh. Version read: docker 28's CLI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.options import OptionSet, flags, read_options, values

#: docker's global options (before its command), docker 28.
GLOBAL = OptionSet((*flags("-D|--debug --tls --tlsverify -v|--version --help"),
                    *values("--config -c|--context -H|--host -l|--log-level --tlscacert --tlscert --tlskey")),
                   permute=False, abbreviations=False)
#: Hosts docker reaches without ssh.
_NOT_SSH = ("unix://", "tcp://", "fd://", "npipe://", "http://", "https://")
_DEFAULT_CONTEXT = ("", "default")


@dataclass(frozen=True)
class Settings:
    """The settings folders a docker command reads (``None``: one only known when it runs) and
    whether it may run ssh."""

    folders: tuple[Path | None, ...]
    runs_ssh: bool


def settings(argv: Sequence[str | None], cwds: Sequence[Path], home: Path) -> Settings:
    """What the docker command ``argv``, run from any of ``cwds``, reads (see the module doc)."""
    parsed = read_options(argv[1:], GLOBAL)
    given: dict[str, list[str | None]] = {}
    for seen in parsed.seen:
        if seen.option is not None:
            given.setdefault(seen.option.names[-1], []).append(seen.value)
    named = given.get("--config", [])
    environment = line_environment.get("DOCKER_CONFIG")
    if named:
        value: str | None = named[-1]
    else:
        value = environment if environment else str(home / ".docker")
    if not value:
        return Settings((None,), True)
    # (a ~ the shell expanded, or left where it was glued: `--config=~/d`)
    spellings = [value, str(home / value[2:])] if value.startswith("~/") else [value]
    folders = tuple(dict.fromkeys(Path(os.path.normpath(c / v)) for v in spellings for c in cwds))
    return Settings(folders, parsed.dynamic or _runs_ssh(given, folders))


def _runs_ssh(given: dict[str, list[str | None]], folders: tuple[Path, ...]) -> bool:
    hosts = given.get("--host", [])
    if hosts:
        return any(not h or not h.startswith(_NOT_SSH) for h in hosts)
    host = line_environment.get("DOCKER_HOST")
    if host:
        return not host.startswith(_NOT_SSH)
    contexts = given.get("--context", [])
    if contexts:
        return any(c not in _DEFAULT_CONTEXT for c in contexts)
    context = line_environment.get("DOCKER_CONTEXT")
    if context:
        return context not in _DEFAULT_CONTEXT
    return any(_current_context(folder) not in _DEFAULT_CONTEXT for folder in folders)


def _current_context(folder: Path) -> str | None:
    """The ``currentContext`` of ``folder/config.json`` (``""``: none; ``None``: not read)."""
    try:
        text = (folder / "config.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    context = data.get("currentContext", "")
    return context if isinstance(context, str) else None
