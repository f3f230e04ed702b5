"""Without the app, the gateway's own engine makes the checks an earlier Echo Desk owed (killed
while a sandboxed command ran): before, they waited for the app or the CLI while the gateway ran
commands in the same folders. The client is told nothing and waits for none of it; what was
found is recorded at once and left for the app's notice (the official Python SDK client, over
stdio, against the real ``echo-desk gateway``)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

from echo_desk.runtime import AUDIT_FILE
from echo_desk.store.audit import AuditLog, Event
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.store.paths import data_dir
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of

from .conftest import gateway_command


def _owed_hook(tmp_path: Path) -> tuple[OwedChecksStore, Path]:
    """A check owed by a gone process, of a workspace where a git hook was planted after its snapshot."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(data_dir() / OWED_CHECKS_FILE)
    store.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, data_dir() / "put-aside"))
    owed_by_a_gone_process(store)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    return store, hook


def _checked_rows() -> list[dict[str, object]]:
    audit = AuditLog(data_dir() / AUDIT_FILE)
    try:
        return [r for r in audit.query() if r["event"] == Event.CHECKED_AFTER_RESTART.value]
    finally:
        audit.close()


async def _until(condition: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not await asyncio.to_thread(condition):
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_the_gateways_own_engine_makes_the_checks_an_earlier_echo_desk_owed(
        gateway_env: dict[str, str], tmp_path: Path) -> None:
    store, hook = _owed_hook(tmp_path)
    command = gateway_command("cursor", "--no-start")
    params = StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)
    async with Client(params) as client:
        await client.list_tools()  # the app is not running: the gateway's own engine answers it
        await _until(lambda: not hook.exists(), "the owed check was not made by the gateway")
        await _until(lambda: store.owed() == [] and store.untold(), "the check was not kept as made")
    [told] = store.untold()  # left for the app's notice: the client is no one to tell
    assert told.call_id == "call-1" and [p["path"] for p in told.planted] == [".git/hooks/pre-commit"]
    # Recorded before the gateway's engine closed its audit log (the check ran beside the list).
    [row] = _checked_rows()
    assert row["call_id"] == "call-1" and row["ok"]


async def test_the_gateways_own_engine_serves_one_app_and_closes_after_its_checks(tmp_path: Path) -> None:
    """Its engine names the app it serves (on the rows of what its servers left), and closing it
    waits for the checks it began, whose records go to its audit log."""
    from echo_desk.cli.gateway import _fallback_factory

    store, hook = _owed_hook(tmp_path)
    backend = await _fallback_factory("cursor", str(tmp_path), "Echo Desk is not running")
    await backend.close()  # at once: the check began beside it is waited for, not cut off
    assert getattr(backend.session.engine, "client", None) == "cursor"
    assert not hook.exists() and store.owed() == [] and len(store.untold()) == 1
    assert [r["call_id"] for r in _checked_rows()] == ["call-1"]
