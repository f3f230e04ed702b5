"""A sandboxed server whose grandchild keeps its stderr open after the server itself is gone:
the check of its folder at its end is neither skipped nor held up by it. The server's end is
seen by its stderr closing, and a grandchild holding that pipe could have delayed it for as long
as it lives. It does not: the sandbox's PID namespace ends with the server, and with it every
process the server started, and the check runs once the server's supervisor has ended them all
(tested: the grandchild ran, meant to hold stderr for 30 s, and was gone before the end was
noticed, ~0.2 s after the server's exit; what it wrote in the moment after the server's exit was
put aside with the server's own plant)."""

from __future__ import annotations

import time

import pytest
from sandbox_helpers import Jail, requires_bwrap
from test_mcp_sandbox import _engine_with_probe, _probe
from test_mcp_server_endings import _manager, _told, _until_not_connected

from echo_desk.mcp import ServerState
from echo_desk.store.settings import SettingsStore

#: How long the grandchild holds stderr open: far beyond every bound the test allows.
HOLDS_FOR = "30"
#: The end and its check, noticed well before the grandchild would let go of stderr.
NOTICED_WITHIN = 10.0


@requires_bwrap
@pytest.mark.parametrize("exit_code", [0, 1])
async def test_a_grandchild_holding_stderr_does_not_hold_up_the_check_at_the_servers_own_exit(
        jail: Jail, exit_code: int) -> None:
    flag, planted = jail.base / "plant-now", jail.workspace / ".envrc"
    late, started = jail.workspace / ".tool-versions", jail.workspace / "grandchild-started"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    try:
        manager = _manager(runtime)
        first = await _probe(runtime, then_exit=[str(flag), str(planted)], exit_code=exit_code,
                             leave=[HOLDS_FOR, str(late), str(started)])
        assert first.ok, first.error
        flag.touch()
        began = time.monotonic()
        assert await _until_not_connected(manager) is ServerState.ERROR
        noticed = time.monotonic() - began
        assert started.exists(), "the grandchild never ran: the test proves nothing"
        assert noticed < NOTICED_WITHIN, f"the end was noticed only after {noticed:.1f} s"
        assert not planted.exists(), "the check at the server's end did not run"
        after = await _probe(runtime)
    finally:
        flag.touch()
        await runtime.aclose()
    assert after.ok, after.error
    # What the grandchild wrote in its last moment, if it had one, was checked too.
    assert _told(after) in ([".envrc"], [".envrc", ".tool-versions"]), after.content
    assert not late.exists(), "the grandchild outlived the server and planted after its check"


@requires_bwrap
async def test_a_grandchild_holding_stderr_does_not_hold_up_the_check_when_the_app_quits(jail: Jail) -> None:
    planted, late = jail.workspace / ".envrc", jail.workspace / ".tool-versions"
    started = jail.workspace / "grandchild-started"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    try:
        assert (await _probe(runtime, leave=[HOLDS_FOR, str(late), str(started)])).ok
        assert started.exists(), "the grandchild never ran: the test proves nothing"
        planted.write_text("echo planted")  # (after the call's check: as the running server could)
    finally:
        began = time.monotonic()
        await runtime.aclose()
        quitting = time.monotonic() - began
    assert quitting < NOTICED_WITHIN, f"quitting took {quitting:.1f} s"
    assert not planted.exists(), "the check when the app quits did not run"
    assert not late.exists(), "the grandchild outlived the server and planted after its check"
