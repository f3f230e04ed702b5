"""Stop reaching a waiting MCP call: one timer per loop for every call waiting there, armed only
while one waits, and each call stopped at the first look after its Stop, as with a timer each."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from echo_desk.mcp import stop_watch
from echo_desk.mcp.stop_watch import CANCEL_POLL_SECONDS, StopWatch
from echo_desk.tools import ToolExecutionContext


def _ctx() -> ToolExecutionContext:
    return ToolExecutionContext(call_id="c", tool_name="f__echo", scope_id="test")


async def _until(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.005)


def _timers_armed(monkeypatch: pytest.MonkeyPatch, loop: asyncio.AbstractEventLoop) -> list[float]:
    armed: list[float] = []
    real = loop.call_later

    def counted(delay: float, callback: Any, *args: Any, **kwargs: Any) -> asyncio.TimerHandle:
        if delay == CANCEL_POLL_SECONDS:  # (the test's own sleeps are of other lengths)
            armed.append(delay)
        return real(delay, callback, *args, **kwargs)

    monkeypatch.setattr(loop, "call_later", counted)
    return armed


async def test_calls_one_after_another_arm_one_timer_between_them(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    armed = _timers_armed(monkeypatch, loop)
    for _ in range(200):
        waited = loop.create_future()
        watch = StopWatch(_ctx(), waited)
        waited.set_result(None)
        watch.close()
    assert armed == [CANCEL_POLL_SECONDS]


async def test_a_stop_cancels_the_call_at_the_next_look_and_only_that_call() -> None:
    loop = asyncio.get_running_loop()
    stopped_ctx, other_ctx = _ctx(), _ctx()
    stopped_call, other_call = loop.create_future(), loop.create_future()
    stopped, other = StopWatch(stopped_ctx, stopped_call), StopWatch(other_ctx, other_call)
    try:
        await asyncio.sleep(CANCEL_POLL_SECONDS * 2.5)  # looked at, nothing set: both go on waiting
        assert not stopped_call.done() and not other_call.done()
        threading.Thread(target=stopped_ctx.cancel_event.set).start()  # Stop comes from another thread
        await _until(stopped_call.done)
        assert stopped_call.cancelled() and stopped.stopped
        await asyncio.sleep(CANCEL_POLL_SECONDS * 2.5)
        assert not other_call.done() and not other.stopped
    finally:
        stopped.close()
        other.close()
        other_call.cancel()


async def test_a_call_that_ended_is_not_cancelled_by_a_later_stop() -> None:
    loop = asyncio.get_running_loop()
    ctx, waited = _ctx(), loop.create_future()
    watch = StopWatch(ctx, waited)
    watch.close()  # the call ended before its first look
    ctx.cancel_event.set()
    await asyncio.sleep(CANCEL_POLL_SECONDS * 2.5)
    assert not waited.done() and not watch.stopped
    waited.cancel()


async def test_the_timer_stops_once_nothing_waits_and_starts_again_for_the_next_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    armed = _timers_armed(monkeypatch, loop)
    waited = loop.create_future()
    StopWatch(_ctx(), waited).close()
    await _until(lambda: loop not in stop_watch._watches_by_loop)
    await asyncio.sleep(CANCEL_POLL_SECONDS * 2.5)
    assert armed == [CANCEL_POLL_SECONDS]  # the look found nothing waiting: not armed again
    ctx = _ctx()
    watch = StopWatch(ctx, waited)
    ctx.cancel_event.set()
    await _until(waited.done)
    assert waited.cancelled() and watch.stopped and armed == [CANCEL_POLL_SECONDS] * 2
