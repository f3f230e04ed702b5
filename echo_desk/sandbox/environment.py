"""The environment a command gets: an allow-list of harmless variables, never a deny-list.

Echo Desk's own environment may hold API keys, tokens, ``DATABASE_URL`` with a password, an
``SSH_AUTH_SOCK``...: a name-pattern deny-list always misses one, so only variables named here
(or starting with ``LC_``) are passed on, sandboxed or not.

``command_environment`` is the one definition of what a ``run_command`` line gets, in the
sandbox and outside: the runner spawns with it, the sandbox (``launch.prepare``) builds its
environment with it, and the permission engine judges with it, so the engine never reads a
variable (``GIT_DIR``, ``CARGO_TARGET_DIR``…) the command does not get, nor misses one it does.
A sandboxed MCP server gets the same, with the variables of its own entry on top.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType

from echo_desk.sandbox.shell import without_start_up_files

#: Locale, terminal, user identity and tool-chain locations: none of these carries a secret.
ALLOWED_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR",
    "TZ", "TMPDIR", "PAGER", "EDITOR", "VISUAL",
    "VIRTUAL_ENV", "CONDA_PREFIX", "JAVA_HOME", "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME",
    "NVM_DIR", "PYENV_ROOT",
    # Where the person's own programs find their libraries (the desktop bundle puts its own
    # value back to the person's at start: packaging/rthook_child_env.py). LD_PRELOAD is not passed.
    "LD_LIBRARY_PATH",
})
ALLOWED_PREFIXES = ("LC_",)
#: The variables that list folders to search for programs or libraries.
SEARCH_PATHS = ("PATH", "LD_LIBRARY_PATH")
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
#: What a sandboxed command gets in place of Echo Desk's value: the sandbox's own private /tmp.
SANDBOX_VALUES: Mapping[str, str] = MappingProxyType({"TMPDIR": "/tmp"})


def is_allowed(name: str) -> bool:
    return name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)


def allowed_environment(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``source`` (default: this process) a command may see."""
    env = os.environ if source is None else source
    kept = {k: v for k, v in env.items() if is_allowed(k)}
    for name in SEARCH_PATHS:
        if name in kept:
            kept[name] = absolute_entries(kept[name])
    if not kept.get("PATH"):
        kept["PATH"] = DEFAULT_PATH
    return kept


def absolute_entries(search_path: str) -> str:
    """``search_path`` without its relative and empty entries: each of those names the folder
    the command runs in (an empty one too), which is the workspace the agent writes, so a
    planted ``./ls`` or library would be found there before the real one."""
    return ":".join(entry for entry in search_path.split(":") if entry.startswith("/"))


def command_environment(source: Mapping[str, str] | None = None, *, sandboxed: bool = False,
                        own: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables a command line run by ``run_command`` starts with (the shell then sets its
    own: ``PWD`` for the folder it runs in, ``SHLVL``, ``_``): the allow-list of ``source``
    (default: this process) without the shell's start-up file variables, and in the sandbox
    ``SANDBOX_VALUES`` on top. ``own``: a sandboxed MCP server's configured variables (its own
    keys, on purpose), added as they are, under the sandbox's values."""
    environment = without_start_up_files(allowed_environment(source))
    environment.update(own or {})
    if sandboxed:
        environment.update(SANDBOX_VALUES)
    return environment
