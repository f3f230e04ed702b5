"""Ending a sandbox so that nothing of it still runs when the guard looks at what it left.

bwrap (run with ``--unshare-pid``) forks the sandbox's init, process 1 of a PID namespace of its
own, which runs the command. bwrap itself exits as soon as the command's own process does, and
killing it (a timeout) returns at once too: its init then gets its parent-death signal and the
kernel ends the processes of the sandbox a moment later. In that moment a background loop still
writes, after the guard compared and put things aside (an ``.envrc`` made again). So the init is
killed by its own id (bwrap reports it on ``--info-fd``) and ``gone`` waits until no process is
left in the sandbox's PID namespace: until the init itself has exited, which the kernel lets it
do only once every other process of its namespace is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from typing import NamedTuple

#: How long ``gone`` waits for the kernel to end the sandbox's processes.
WAIT_SECONDS = 10.0


class Inside(NamedTuple):
    """The sandbox's init (its id outside) and its PID namespace (the inode bwrap reports)."""

    init: int
    pid_namespace: int


def read_info(fd: int) -> Inside | None:
    """bwrap's ``--info-fd`` report, read from ``fd`` (non-blocking; ``None``: none or not whole)."""
    data = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(fd, 4096):
            data += chunk
    try:
        info = json.loads(data)
        return Inside(int(info["child-pid"]), int(info["pid-namespace"]))
    except (ValueError, KeyError, TypeError):
        return None


def _in_namespace(pid: int, inside: Inside) -> bool:
    """Still running in the sandbox. Not a zombie: it exited (and an init that exited has ended
    its namespace), however long whoever inherited it takes to collect it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        if stat[stat.rfind(b")") + 2:].startswith(b"Z"):
            return False
        return os.readlink(f"/proc/{pid}/ns/pid") == f"pid:[{inside.pid_namespace}]"
    except OSError:  # gone
        return False


def end(inside: Inside | None) -> None:
    """Kill the sandbox's init: the kernel then ends everything in its PID namespace. Only the
    process that is still in that namespace (an id is reused once its process is gone)."""
    if inside is not None and _in_namespace(inside.init, inside):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(inside.init, signal.SIGKILL)


def _anyone_left(inside: Inside) -> bool:
    # The init of a PID namespace, once killed, does not finish exiting (it stays running, not a
    # zombie) until every other process of its namespace has exited and been reaped: the kernel
    # kills them all and waits for them (zap_pid_ns_processes). So the init alone tells whether
    # anyone is left; no walk over every process of the machine is needed.
    return _in_namespace(inside.init, inside)


async def gone(inside: Inside | None, wait_seconds: float = WAIT_SECONDS) -> bool:
    """Wait until no process is left in the sandbox (``False``: some still were at the bound)."""
    if inside is None:
        return True
    deadline = time.monotonic() + wait_seconds
    while _anyone_left(inside):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.002)
    return True
