"""A call's handler as the caller's loop sees it: what it returned and when it really ended.

When a call is cancelled or times out, the caller stops waiting at once, but the handler on its
worker thread ends only at its next ``await`` — or, in a blocking step, when that step returns.
It may finish a write in the meantime. What it changed must still reach the change log (or Revert
cannot undo it) and the record of the call, so the dispatcher waits for the end (``end``, bounded)
and then reads ``returned``.

Only a caller that waits is woken: a call that ends as usual costs no extra wake-up of the
caller's loop (the worker's result already wakes it once).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: What the undo journal kept of the files a call is about to change (its own values).
Kept = dict[str, Any]


class Handler:
    def __init__(self) -> None:
        #: What the handler returned, assigned in the same step as its return: a cancel that
        #: arrives during that step cannot lose it, as it loses the worker's own future.
        self.returned: object = None
        self._lock = threading.Lock()
        self._ended = False
        self._waiter: asyncio.Future[None] | None = None

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro``, watched (awaited on the thread that runs the handler)."""
        try:
            returned = self.returned = await coro
            return returned
        finally:
            with self._lock:
                self._ended, waiter = True, self._waiter
            if waiter is not None:
                with contextlib.suppress(RuntimeError):  # the caller's loop has closed: nobody waits
                    waiter.get_loop().call_soon_threadsafe(_settle, waiter)

    async def end(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the handler to end; whether it did."""
        with self._lock:
            if self._ended:
                return True
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(asyncio.shield(waiter), seconds)
        except TimeoutError:
            return False
        return True


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
