"""Which shell runs a command line: bash, the grammar the permission rules parse, started without
any start-up file; ``/bin/sh`` only where bash is missing (then the rules allow only lines of
plain words, which every POSIX shell reads alike).

``/bin/sh`` is dash on Debian and Ubuntu: it has no ``$'…'``, ``[[ ]]``, ``(( ))`` or ``time``
keyword, so a line checked with a bash grammar and run by dash can run something else than what
was checked. Running bash closes that gap.
"""

from __future__ import annotations

import enum
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

#: Where bash is looked for first (a fixed place, not the first ``bash`` on a search path).
BASH_PLACES = ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash")
POSIX_SHELL = "/bin/sh"
#: Variables naming a file a shell reads at start: never passed to it.
START_UP_VARIABLES = ("BASH_ENV", "ENV")


class Grammar(enum.StrEnum):
    """How the shell that runs a line reads it."""

    BASH = "bash"
    POSIX = "sh"  # some POSIX shell (dash, busybox ash…): only plain words are read alike by all


@dataclass(frozen=True)
class Shell:
    """The shell ``run_command`` runs lines with."""

    name: str
    path: str
    grammar: Grammar

    def argv(self, line: str) -> list[str]:
        """The command line that runs ``line``."""
        if self.grammar is Grammar.BASH:
            return [self.path, "--noprofile", "--norc", "-c", line]
        return [self.path, "-c", line]

    @property
    def shown(self) -> str:
        """How the approval and the CLI name it: ``/bin/bash --noprofile --norc -c``."""
        return " ".join(self.argv("")[:-1])


def find_bash() -> str | None:
    """The bash to run lines with, or ``None`` when there is none."""
    for place in BASH_PLACES:
        if os.path.isfile(place) and os.access(place, os.X_OK):
            return place
    return shutil.which("bash")


@lru_cache(maxsize=1)
def command_shell() -> Shell:
    """The shell of this machine (looked up once)."""
    bash = find_bash()
    if bash is not None:
        return Shell("bash", bash, Grammar.BASH)
    return Shell("sh", POSIX_SHELL, Grammar.POSIX)


def without_start_up_files(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without the variables that make a shell read a file before the line."""
    return {k: v for k, v in env.items() if k not in START_UP_VARIABLES}
