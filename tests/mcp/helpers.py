"""Shared helpers of the MCP tests: real server locations, process counting, waiting."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from echo_desk.agent.registry import ToolRegistry

HERE = Path(__file__).parent
EVERYTHING = HERE / "servers" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
FAULT_SERVER = HERE / "fault_server.py"
TINY_SERVER = HERE / "tiny_server.py"
MARK = "ECHO_DESK_MCP_TEST_MARK"


def have_everything() -> bool:
    return EVERYTHING.is_file() and shutil.which("node") is not None


def time_server_command() -> list[str] | None:
    exe = Path(sys.executable).with_name("mcp-server-time")
    return [str(exe), "--local-timezone", "UTC"] if exe.exists() else None


def marked_pids(mark: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``MARK=mark`` (any depth)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def server_pids(mark: str) -> list[int]:
    """``marked_pids`` without the reaper supervisors in front of each stdio server."""
    found = []
    for pid in marked_pids(mark):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if any(a.endswith(b"echo_desk/sandbox/reaper.py") or a == b"echo_desk.sandbox.reaper" for a in argv):
                continue
        except OSError:
            continue
        found.append(pid)
    return found


def process_report(pid: int) -> str:
    """Who ``pid`` is, for a failure message: its state, parent (and the parent's command line:
    1 or a stranger means it escaped its supervisor), how long it has run, what it waits in and
    its command line. A process gone meanwhile says so."""

    def read(name: str, of: int = pid) -> bytes:
        with open(f"/proc/{of}/{name}", "rb") as f:
            return f.read()

    try:
        stat = read("stat")
        fields = stat.rsplit(b")", 1)[1].split()
        state, parent, started = fields[0].decode(), int(fields[1]), int(fields[19])
        command = b" ".join(read("cmdline").split(b"\0")).decode(errors="replace").strip()
        wchan = read("wchan").decode(errors="replace") or "-"
    except (OSError, IndexError, ValueError):
        return f"pid {pid}: gone"
    try:
        parent_command = b" ".join(read("cmdline", parent).split(b"\0")).decode(errors="replace").strip()
    except OSError:
        parent_command = "?"
    with open("/proc/uptime", "rb") as f:
        uptime = float(f.read().split()[0])
    age = uptime - started / os.sysconf("SC_CLK_TCK")
    return (f"pid {pid} state {state} (waiting in {wchan}), {age:.1f} s old, parent {parent} ({parent_command[:120]}): "
            f"{command[:300]}")


def children_of(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of every direct child of ``pid``, zombies included."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append((int(entry), fields[0].decode()))
    return found


async def wait_until(check: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something truthy, or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


class TestRegistry(ToolRegistry):
    """The engine's real registry, plus a ``tools`` view for short assertions."""

    @property
    def tools(self) -> dict[str, tuple[Any, str]]:
        return {entry.name: (entry.tool, entry.source) for entry in self.entries()}


def get_tool(registry: ToolRegistry, name: str) -> Any:
    entry = registry.get(name)
    assert entry is not None, f"{name} is not registered (have: {sorted(e.name for e in registry.entries())})"
    return entry.tool
