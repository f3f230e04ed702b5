"""A command that leaves a named pipe (or another special file) where the check after it reads
git's files does not stop Echo Desk.

The check runs in Echo Desk's own process, on its event loop: reading a pipe that nobody writes
waits forever, which froze every later call (and, in the app, the window), and the next command
in the same workspace froze again before it started. Each command here plants one pipe where
the check reads: a ``.git`` file, a nested repository's ``config`` or ``commondir``, a file its
settings include.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.tools import ToolResult

pytestmark = requires_bwrap

NEW_REPOSITORY = "mkdir -p sub/.git/objects sub/.git/refs && echo 'ref: refs/heads/main' > sub/.git/HEAD"
PIPES = {
    ".git file": "mkdir sub && mkfifo sub/.git",
    "a link to a pipe as the .git file": "mkdir sub && mkfifo pipe && ln -s ../pipe sub/.git",
    "nested config": f"{NEW_REPOSITORY} && mkfifo sub/.git/config",
    "nested commondir": f"{NEW_REPOSITORY} && mkfifo sub/.git/commondir",
    "included settings": f"{NEW_REPOSITORY} && mkfifo included && printf '[include]\\n\\tpath = ../../included\\n' "
                         "> sub/.git/config",
}
DEADLINE_S = 20.0


def _run_on_a_loop_of_its_own(command: str, ws: Path) -> tuple[threading.Thread, list[ToolResult]]:
    results: list[ToolResult] = []

    def go() -> None:
        results.append(asyncio.run(run(tool_with(), {"command": command}, context(ws))))

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread, results


def _unblock(ws: Path) -> None:
    """Give every pipe in the workspace a writer that closes at once: a reader stuck on one ends."""
    for folder, _dirs, names in os.walk(ws):
        for name in names:
            path = os.path.join(folder, name)
            if stat.S_ISFIFO(os.lstat(path).st_mode):
                try:
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass


@pytest.mark.parametrize("command", PIPES.values(), ids=list(PIPES))
def test_a_pipe_where_git_files_are_read_does_not_stop_echo_desk(jail: Jail, command: str) -> None:
    ws = jail.workspace
    for attempt in ("plant", "next command"):
        thread, results = _run_on_a_loop_of_its_own(command if attempt == "plant" else "true", ws)
        thread.join(DEADLINE_S)
        stuck = thread.is_alive()
        if stuck:
            _unblock(ws)
            thread.join(DEADLINE_S)
        assert not stuck, f"{attempt}: the call did not end within {DEADLINE_S:.0f} s"
        assert results and results[0].metadata["sandbox"]["sandboxed"] is True
        if attempt == "plant":  # the new repository, or its pipe, is put aside as any plant is
            assert results[0].metadata["sandbox"]["planted"], results[0].output
