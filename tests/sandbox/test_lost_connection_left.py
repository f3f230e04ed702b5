"""A sandboxed server killed mid-session: what the check at its end found is in the audit log
(a row of the server's own) once the loss is noticed, not only when a later call or the quit
says it."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from sandbox_helpers import Jail, requires_bwrap
from test_mcp_sandbox import _engine_with_probe, _probe
from test_mcp_server_endings import _told

from echo_desk.mcp import calls
from echo_desk.store.audit import AuditLog
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.planted import Change, planted_of

T = TypeVar("T")


def _parent_of(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def _below_us(pid: int) -> bool:
    while pid > 1:
        pid = _parent_of(pid)
        if pid == os.getpid():
            return True
    return False


def _probe_pids() -> list[int]:
    """The probe servers below this process (the innermost python, inside the sandbox)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(cmdline) > 2 and cmdline[2].endswith(b"probe_server.py") and _below_us(int(entry)):
            found.append(int(entry))
    return found


def _server_left_rows(audit: AuditLog) -> list[dict[str, object]]:
    return [r for r in audit.query() if r["event"] == "server_left"]


async def _until(condition: Callable[[], T], what: str, seconds: float = 30) -> T:
    deadline = time.monotonic() + seconds
    while not (found := await asyncio.to_thread(condition)):
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)
    return found


@requires_bwrap
@pytest.mark.parametrize("noticed_by", ["its own end", "a call in flight", "a call that stopped waiting"])
async def test_a_killed_servers_plant_is_recorded_when_its_loss_is_noticed(
        jail: Jail, noticed_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed between calls, its runner notices; killed under a call, the call does and the
    connection is closed, whose check finds the plant: its row is written then. Before, that
    check's find waited in the connection for the next call's row or the quit, and a call that
    stopped waiting for it (the check outlasting ``_END_CHECK_WAIT``) did not say it either."""
    if noticed_by == "a call that stopped waiting":
        monkeypatch.setattr(calls, "_END_CHECK_WAIT", 0.0)
    planted, mark, flag = jail.workspace / ".envrc", jail.workspace / "in-flight", jail.base / "never"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"})
    try:
        await _until(planted.exists, "the server did not start")
        call = None
        if noticed_by != "its own end":
            call = asyncio.ensure_future(_probe(runtime, wait_for=[str(mark), str(flag)]))
            await _until(mark.exists, "the call did not reach the server")
        [pid] = _probe_pids()
        os.kill(pid, signal.SIGKILL)
        envelope = await call if call is not None else None
        [row] = await _until(lambda: _server_left_rows(runtime.audit), "no server_left row while Echo Desk runs")
        calls_rows = [r for r in await asyncio.to_thread(runtime.audit.query) if r["event"] == "call"]
    finally:
        flag.touch()
        await runtime.aclose()
    assert not planted.exists()
    assert (row["tool"], row["source"], row["arguments"]) == ("probe", "mcp:probe", {"folder": str(jail.workspace)})
    [entry] = planted_of(row["planted"])
    assert entry.path == str(planted) and entry.change is Change.CREATED
    if envelope is not None:
        assert not envelope.ok and "the connection to the server was lost" in envelope.error
        # The call it ended under says it when it waited for the check; its row never repeats it.
        assert _told(envelope) == ([".envrc"] if noticed_by == "a call in flight" else [])
        [call_row] = calls_rows
        assert not call_row["planted"]
