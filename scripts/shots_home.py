"""Where a screenshot script keeps its demo files: ``ECHO_DESK_SHOTS_HOME`` when set (the runner,
``scripts/screenshots_all.sh``, mounts a fresh folder at /home/me so the pictures show
/home/me/project and not the build machine's temporary folders), else a new temporary folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def shots_home(prefix: str) -> Path:
    given = os.environ.get("ECHO_DESK_SHOTS_HOME")
    if given:
        home = Path(given)
        home.mkdir(parents=True, exist_ok=True)
        return home
    return Path(tempfile.mkdtemp(prefix=prefix))
