"""A coroutine under a time limit, without a timer when it finishes without waiting.

``asyncio.timeout`` arms and cancels a timer on the loop (~6 µs). A handler that returns
before its first ``await`` of something pending cannot be interrupted by that timer anyway
(a timeout only acts where the coroutine waits), so it is stepped once first: if it is done,
its result is the answer; if it waits, the rest of it runs under the same deadline, counted
from before the first step, as ``asyncio.timeout`` around the whole would have done.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


async def bounded(coro: Coroutine[Any, Any, T], seconds: float, at_first_wait: Callable[[], None] | None = None) -> T:
    """``await coro`` under a limit of ``seconds`` (``TimeoutError`` past it). ``at_first_wait`` is
    called once ``coro`` first waits, in the same step (before the loop turns); never when it
    finishes without waiting."""
    when = asyncio.get_running_loop().time() + seconds
    if type(coro) is not types.CoroutineType:  # another awaitable: no first step to take here
        async with asyncio.timeout_at(when):
            return await coro
    try:
        waiting = coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    if at_first_wait is not None:
        at_first_wait()
    async with asyncio.timeout_at(when):
        return await _resume(coro, waiting)  # type: ignore[no-any-return]


@types.coroutine
def _resume(coro: Coroutine[Any, Any, Any], waiting: Any) -> Generator[Any, Any, Any]:
    """The rest of ``coro`` after a first step that yielded ``waiting``: as ``yield from coro``
    would go on (what the task sends or throws in reaches ``coro``)."""
    while True:
        try:
            sent = yield waiting
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:  # noqa: BLE001 - handed on to the coroutine, as yield from does
            try:
                waiting = coro.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                waiting = coro.send(sent)
            except StopIteration as done:
                return done.value
