"""Tie a stdio server's life to ours, even when we are killed with no chance to clean up.

A server that follows the protocol exits when its stdin closes, which the kernel does for us
when we die. One that does not (it ignores EOF and SIGTERM) would outlive a ``kill -9`` of the
app. On Linux, util-linux's ``setpriv --pdeathsig KILL`` (always present on Debian) asks the
kernel to kill the server when the thread that started it is gone; ``setpriv`` then execs the
server, so the pid, process group and command line the person approved stay the same.
Elsewhere, with a ``setpriv`` too old for ``--pdeathsig`` (util-linux < 2.33), or when the
command cannot be found (the spawn must report that itself), the command is left as it is.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from echo_desk.sandbox import reaper
from echo_desk.sandbox.helper import helper_command


@functools.cache
def setpriv_with_pdeathsig() -> str | None:
    """The path of a ``setpriv`` that knows ``--pdeathsig`` (asked once per process), or None."""
    if not sys.platform.startswith("linux"):
        return None
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    try:
        usage = subprocess.run([setpriv, "--help"], capture_output=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return setpriv if b"--pdeathsig" in usage else None


def leashed(command: str, args: Sequence[str], env: Mapping[str, str]) -> tuple[str, list[str]]:
    """The command line to spawn: ``command args`` behind ``setpriv`` where that works."""
    setpriv = setpriv_with_pdeathsig()
    search_path = env.get("PATH") or os.environ.get("PATH", os.defpath)
    if setpriv is None or shutil.which(command, path=search_path) is None:
        return command, list(args)
    return setpriv, ["--pdeathsig", "KILL", "--", command, *args]


def reaped(command: str, args: Sequence[str], env: Mapping[str, str]) -> tuple[str, list[str]]:
    """``command args`` below the reaper supervisor (Linux), which ends every process the server
    started — also those it put in their own session, or that ignore SIGTERM — when the server
    exits, when it is disconnected (SIGTERM) and when Echo Desk dies (parent-death signal).
    A command that cannot be found is left as it is, so the spawn reports that itself."""
    search_path = env.get("PATH") or os.environ.get("PATH", os.defpath)
    if not sys.platform.startswith("linux") or shutil.which(command, path=search_path) is None:
        return command, list(args)
    program, *options = helper_command(reaper.__name__, Path(reaper.__file__))
    return program, [*options, "--", command, *args]
