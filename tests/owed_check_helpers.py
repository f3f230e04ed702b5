"""Checks owed by an Echo Desk process that is gone, made without a sandbox: the guard's snapshot
of a plain folder (what ``run_command`` keeps before a sandboxed command), kept in the store as a
process that no longer runs left it (shared by tests/store and tests/ui)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from echo_desk.sandbox import inventory
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.sandbox.guard import Guard
from echo_desk.store.owed_checks import OwedChecksStore


def snapshot_of(workspace: Path, home: Path, put_aside: Path) -> bytes:
    """The snapshot a sandboxed command in ``workspace`` would have kept before it started."""
    guard = Guard.before(inventory.take(workspace, home=home), home=home, put_aside=put_aside)
    return sandbox_owed.owed([guard], [])


def owed_by_a_gone_process(store: OwedChecksStore) -> None:
    """Every row of ``store`` as left by a process that has ended (a child's id and start time)."""
    gone = subprocess.run([sys.executable, "-c", "from echo_desk.store.owed_checks import this_process as t;"
                           "print(t())"], capture_output=True, text=True, check=True).stdout.strip()
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE owed_checks SET owner = ?", (gone,))
