"""``bounded``: the same results, errors, time limit and cancellation as ``asyncio.timeout``."""

from __future__ import annotations

import asyncio
import time

import pytest

from echo_desk.agent.bounded import bounded


async def test_a_coroutine_that_does_not_wait_answers_without_a_timer() -> None:
    loop = asyncio.get_running_loop()

    async def at_once() -> str:
        return "done"

    before = len(loop._scheduled)  # type: ignore[attr-defined]
    assert await bounded(at_once(), 0) == "done"  # a limit only acts where the coroutine waits
    assert len(loop._scheduled) == before  # type: ignore[attr-defined]


async def test_a_coroutine_that_waits_goes_on_and_answers() -> None:
    async def later() -> int:
        await asyncio.sleep(0)
        await asyncio.sleep(0.001)
        return 7

    assert await bounded(later(), 30) == 7


async def test_errors_come_out_before_and_after_a_wait() -> None:
    async def at_once() -> None:
        raise ValueError("first step")

    async def after_waiting() -> None:
        await asyncio.sleep(0)
        raise KeyError("later")

    with pytest.raises(ValueError, match="first step"):
        await bounded(at_once(), 30)
    with pytest.raises(KeyError):
        await bounded(after_waiting(), 30)


async def test_past_the_limit_the_coroutine_is_cancelled_and_timeout_raised() -> None:
    stopped = asyncio.Event()

    async def hangs() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    with pytest.raises(TimeoutError):
        await bounded(hangs(), 0.01)
    assert stopped.is_set()


async def test_the_limit_counts_from_before_the_first_step() -> None:
    loop = asyncio.get_running_loop()
    answer = loop.create_future()
    loop.call_later(0.15, answer.set_result, "too late")

    async def slow_start() -> str:
        end = time.monotonic() + 0.2
        while time.monotonic() < end:  # the first step alone uses up the whole limit
            pass
        return str(await answer)

    with pytest.raises(TimeoutError):
        await bounded(slow_start(), 0.2)


async def test_cancelling_the_caller_reaches_the_coroutine() -> None:
    seen: list[str] = []
    started = asyncio.Event()

    async def waits() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    task = asyncio.create_task(bounded(waits(), 30))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


async def test_a_coroutine_may_catch_what_is_thrown_in_and_go_on() -> None:
    async def stubborn() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0)
            return "kept going"
        return "never"

    task = asyncio.create_task(bounded(stubborn(), 30))
    await asyncio.sleep(0)
    task.cancel()
    assert await task == "kept going"


async def test_an_awaitable_that_is_not_a_coroutine_is_awaited_under_the_limit() -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.call_soon(ready.set_result, "from a future")
    assert await bounded(ready, 30) == "from a future"  # type: ignore[arg-type]
    with pytest.raises(TimeoutError):
        await bounded(loop.create_future(), 0.01)  # type: ignore[arg-type]
