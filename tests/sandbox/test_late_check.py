"""A sandbox that still runs when its command ends (bwrap not reaped in time, a process the
kernel has not ended yet): what it leaves is checked when it ends, never skipped and never while
it may still write; the result says so."""

from __future__ import annotations

import asyncio

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.builtins.shell import run_command
from echo_desk.sandbox import ending
from echo_desk.ui.chat.card_parse import sandbox_of
from echo_desk.ui.chat.sandbox_card import sandbox_lines

pytestmark = requires_bwrap


async def test_a_sandbox_still_running_at_the_bound_is_checked_when_it_ends(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    real_gone = ending.gone
    still_running = asyncio.Event()

    async def gone_late(inside: ending.Inside | None, wait_seconds: float = ending.WAIT_SECONDS) -> bool:
        if not still_running.is_set():  # the first look at the bound: still running
            still_running.set()
            return False
        return await real_gone(inside, wait_seconds)

    monkeypatch.setattr(run_command.ending, "gone", gone_late)
    result = await run(tool_with(), {"command": "echo evil > .envrc"}, context(jail.workspace))
    assert result.success and "checked, and put aside or back, when they end" in result.output
    assert result.metadata["sandbox"]["checked_later"] is True
    facts = sandbox_of(result.metadata)
    assert facts is not None and any("still ran in the sandbox" in text for text, _colour in sandbox_lines(facts))

    deadline = asyncio.get_running_loop().time() + 30
    while (jail.workspace / ".envrc").exists():  # the late check puts it aside
        assert asyncio.get_running_loop().time() < deadline, "the late check never ran"
        await asyncio.sleep(0.05)
    assert not run_command._late_checks or all(t.done() for t in run_command._late_checks)
