"""Paired old/new bench runs: ``echo_desk`` as it was at a commit, for a child process to import.

The scripts that compare the old code with the new import this after putting the bench folder
explicitly at the end of ``sys.path`` (they take it off the front, where it would shadow
installed packages): nothing here imports ``echo_desk``, so a child given an old tree on its
``PYTHONPATH`` can load this module too without mixing the two versions.
"""

from __future__ import annotations

import atexit
import io
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tree_at(commit: str) -> Path:
    """A new temporary folder holding ``echo_desk`` as of ``commit`` (extracted with git archive);
    put it first on a child's ``PYTHONPATH``. Removed when this process exits."""
    folder = Path(tempfile.mkdtemp(prefix="echo-tree-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # a copy of the sources per run adds up
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "echo_desk"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder
