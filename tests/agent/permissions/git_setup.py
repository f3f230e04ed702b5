"""Running real git in a test's folder: no system settings, that folder as its home, a fixed
author (the permission tests build repositories whose settings and hooks the engine reads)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git_in(folder: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(folder), "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, env=env)
