"""Whatever way a sandboxed server working in the person's folder ends, what it left there that
would run code later is put aside before the end is reported and before it starts again, and the
next call's result says so, as a call's own check does: its own exit or crash between calls, the
person's Stop or Restart, Echo Desk quitting."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sandbox_helpers import Jail, requires_bwrap
from test_mcp_sandbox import _engine_with_probe, _probe

from echo_desk.agent.envelope import Envelope
from echo_desk.mcp import McpManager, ServerState
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.chat.card_parse import sandbox_of

PLANTS = [".envrc", ".vscode/tasks.json"]


def _told(envelope: Envelope) -> list[str]:
    facts = sandbox_of(envelope.metadata)
    return [p.path for p in facts.planted] if facts is not None else []


def _manager(runtime: Runtime) -> McpManager:
    assert runtime.mcp is not None
    return runtime.mcp


async def _until_not_connected(manager: McpManager) -> ServerState:
    deadline = time.monotonic() + 30
    while (state := manager.status("probe").state) is ServerState.CONNECTED:
        assert time.monotonic() < deadline, "the server's end was never noticed"
        await asyncio.sleep(0.02)
    return state


@requires_bwrap
@pytest.mark.parametrize("plant", PLANTS)
@pytest.mark.parametrize("exit_code", [0, 1])
async def test_a_server_that_plants_then_exits_on_its_own_has_it_put_aside_and_the_next_call_says_so(
        jail: Jail, plant: str, exit_code: int) -> None:
    """The plant is written after the call's own check, just before the server exits (or crashes)
    between calls: the next start took a fresh snapshot holding it, and it stayed."""
    flag, planted = jail.base / "plant-now", jail.workspace / plant
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    try:
        manager = _manager(runtime)
        first = await _probe(runtime, then_exit=[str(flag), str(planted)], exit_code=exit_code)
        assert first.ok and _told(first) == [], first.content
        flag.touch()
        assert await _until_not_connected(manager) is ServerState.ERROR
        assert not planted.exists(), "the server's own end left its plant in place"
        after = await _probe(runtime)
    finally:
        flag.touch()
        await runtime.aclose()
    assert after.ok, after.error
    assert _told(after) == [plant.split("/")[0]], after.content  # (a new folder is put aside whole)
    assert "[sandbox] blocked: the server left files in its folder" in after.content
    assert not planted.exists()


@requires_bwrap
async def test_a_server_that_plants_then_crashes_under_a_call_has_it_put_aside_and_that_call_says_so(
        jail: Jail) -> None:
    """Before, the call's loss and the runner's raced: the close that checked the folder could run
    after the next start's snapshot, whose check then put the plant back (seen once in three runs)."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    try:
        manager = _manager(runtime)
        during = await _probe(runtime, crash_writing=str(planted))
        await _until_not_connected(manager)
        after = await _probe(runtime)
    finally:
        await runtime.aclose()
    assert not during.ok
    assert not planted.exists()
    assert _told(during) == [".envrc"], during.error  # said on the call it ended under
    assert "[sandbox] blocked: the server left files in its folder" in during.error
    assert _told(after) == [], after.content  # and once


@requires_bwrap
@pytest.mark.parametrize("ending", ["stop", "restart"])
async def test_what_is_put_aside_at_a_stop_or_restart_is_said_on_the_next_call(jail: Jail, ending: str) -> None:
    """The check at the stop put it aside, and only the log said so."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory())
    try:
        manager = _manager(runtime)
        assert (await _probe(runtime)).ok
        planted.write_text("echo planted")  # (after the call's check: as the running server could)
        await (manager.stop("probe") if ending == "stop" else manager.restart("probe"))
        assert not planted.exists()
        if ending == "stop":  # (its tools went with it: the person starts it again)
            await manager.start("probe")
        after = await _probe(runtime)
    finally:
        await runtime.aclose()
    assert after.ok, after.error
    assert _told(after) == [".envrc"], after.content


@requires_bwrap
async def test_what_a_running_server_planted_is_put_aside_when_the_app_quits(jail: Jail) -> None:
    planted = jail.workspace / ".vscode" / "tasks.json"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    try:
        assert (await _probe(runtime)).ok
        planted.parent.mkdir()
        planted.write_text('{"tasks": []}')
    finally:
        await runtime.aclose()
    assert not planted.exists()


def test_the_probe_answers_before_it_exits() -> None:
    """(The probe's ``then_exit`` writes after its answer: the call's own check cannot see it.)"""
    source = (Path(__file__).with_name("probe_server.py")).read_text()
    assert source.index('"result": {"content"') < source.index("then_exit\"):")
