"""How Echo Desk starts one of its own small helper scripts as a process (the reaper supervisor,
the sandbox's proxy forwarder).

From a Python install: that Python, isolated (``-I -S``: no site packages, no user paths, fast),
running the script file. In the desktop bundle ``sys.executable`` is Echo Desk itself and the
scripts live inside its archive, not on disk: the bundle's launcher runs ``-m <module>`` as
Python would (``packaging/launcher.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path


def helper_command(module: str, script: Path) -> list[str]:
    """The argv that runs ``script`` (the file of ``module``) as a program of its own."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "-m", module]
    return [sys.executable, "-I", "-S", str(script)]
