"""A sandboxed server is restarted when the person hides or protects a path: it is ended at once
(before the change returns), then started again on the manager's loop. When the end of the old
process was noticed first (a call in flight failing, or its stderr closing), the manager had
already let go of the connection, the restart found nothing to restart, and the server stayed
down (its row: "Error") until the next call.

No bubblewrap here: a real stdio server (``fault_server.py``) whose connection is marked as
started in the sandbox with no hidden paths, which is all the manager looks at; the real
sandbox's case is in ``tests/sandbox/test_mcp_sandbox.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from echo_desk.i18n import shown
from echo_desk.mcp import ServerState
from echo_desk.store.settings import SandboxSettings
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import get_tool, wait_until
from tests.mcp.test_everything import ctx

DEADLINE = 15.0


def _started(log: Path) -> int:
    return sum(line.startswith("started ") for line in log.read_text().splitlines()) if log.exists() else 0


async def _sandboxed_fault(make_manager: Any, log: Path) -> Any:
    manager = make_manager({"f": fault_config(env={"FAULT_LOG": str(log)}, timeout=DEADLINE)})
    status = await manager.start("f")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    manager._servers["f"].conn.started_with = SandboxSettings()  # as if started in the sandbox
    return manager


def _restart_after_the_loss_is_seen(manager: Any, monkeypatch: pytest.MonkeyPatch) -> list[ServerState]:
    """Holds the scheduled restart until the manager has marked the server lost: the order the
    race ends in when the old process's end is noticed first. Returns the state the restart
    found, once it has run."""
    restart = manager._restart_stale
    found: list[ServerState] = []

    async def late(*args: Any) -> None:
        await wait_until(lambda: manager.status("f").state is ServerState.ERROR, DEADLINE, "the loss to be seen")
        state = manager.status("f").state
        await restart(*args)
        found.append(state)

    monkeypatch.setattr(manager, "_restart_stale", late)
    return found


@pytest.mark.parametrize("noticed_by", ["its stderr closing", "a call in flight"])
async def test_a_server_restarted_for_new_sandbox_paths_is_up_again_when_its_end_was_noticed_first(
        make_manager, registry, settings_store, tmp_path, monkeypatch, noticed_by) -> None:
    log = tmp_path / "fault.log"
    manager = await _sandboxed_fault(make_manager, log)
    found = _restart_after_the_loss_is_seen(manager, monkeypatch)
    call: asyncio.Future[Any] | None = None
    if noticed_by == "a call in flight":
        call = asyncio.ensure_future(get_tool(registry, "f__hang").execute({}, ctx("hang")))
        await wait_until(lambda: "hang started" in log.read_text(), DEADLINE, "the call to reach the server")
    settings_store.update(lambda s: s.sandbox.hidden_paths.append(str(tmp_path / "private")))
    if call is not None:
        result = await asyncio.wait_for(call, DEADLINE)
        assert not result.success and "restarted" in result.error, result.error
    await wait_until(lambda: found, DEADLINE, "the restart to have run")
    assert found == [ServerState.ERROR]  # the interleaving under test did happen
    # No call after the change: the restart alone brought the server back.
    status = manager.status("f")
    assert status.state is ServerState.CONNECTED, (status.state, shown(status.detail))
    assert _started(log) == 2


async def test_a_server_the_person_stopped_before_the_restart_ran_stays_stopped(
        make_manager, registry, settings_store, tmp_path, monkeypatch) -> None:
    log = tmp_path / "fault.log"
    manager = await _sandboxed_fault(make_manager, log)
    restart = manager._restart_stale
    stopped = asyncio.Event()
    ran: list[bool] = []

    async def after_the_stop(*args: Any) -> None:
        await stopped.wait()
        await restart(*args)
        ran.append(True)

    monkeypatch.setattr(manager, "_restart_stale", after_the_stop)
    settings_store.update(lambda s: s.sandbox.hidden_paths.append(str(tmp_path / "private")))
    assert (await manager.stop("f")).state is ServerState.STOPPED
    manager.loop.call_soon_threadsafe(stopped.set)
    await wait_until(lambda: ran, DEADLINE, "the restart to have run")
    assert manager.status("f").state is ServerState.STOPPED
    assert _started(log) == 1
