"""One run at a time, however often asked: the runs, their order, and a job that fails."""

from __future__ import annotations

import asyncio

import pytest

from echo_desk.common.coalesced import Coalesced


async def test_asks_during_a_run_make_one_more_run_that_sees_the_last_state() -> None:
    state = {"version": 0}
    seen: list[int] = []
    gate = asyncio.Event()

    async def job() -> None:
        seen.append(state["version"])
        if len(seen) == 1:
            await gate.wait()

    runs = Coalesced(job)
    first = asyncio.ensure_future(runs.run())
    await asyncio.sleep(0)
    assert runs.running
    for version in range(1, 51):
        state["version"] = version
        await runs.run()  # returns at once: the running one will run again
    gate.set()
    await first
    assert seen == [0, 50]
    assert not runs.running


async def test_a_failing_run_lets_the_next_ask_run() -> None:
    calls = 0

    async def job() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the server went away")

    runs = Coalesced(job)
    with pytest.raises(RuntimeError):
        await runs.run()
    await runs.run()
    assert calls == 2
