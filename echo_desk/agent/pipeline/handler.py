"""A call's handler as the caller's loop sees it: what it returned and when it really ended.

When a call is cancelled or times out, the caller stops waiting at once, but the handler on its
worker thread ends only at its next ``await`` — or, in a blocking step, when that step returns.
It may finish a write in the meantime. What it changed must still reach the change log (or Revert
cannot undo it) and the record of the call, so the dispatcher waits for ``ended`` (bounded) and
then reads ``returned``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: What the undo journal kept of the files a call is about to change (its own values).
Kept = dict[str, Any]


class Handler:
    def __init__(self) -> None:
        #: Done once the handler has returned or raised (set from whichever thread ran it).
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: What the handler returned, assigned in the same step as its return: a cancel that
        #: arrives during that step cannot lose it, as it loses the worker's own future.
        self.returned: object = None

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro``, watched (awaited on the thread that runs the handler)."""
        try:
            returned = self.returned = await coro
            return returned
        finally:
            with contextlib.suppress(RuntimeError):  # the caller's loop has closed: nobody waits
                self.ended.get_loop().call_soon_threadsafe(_settle, self.ended)

    async def end(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the handler to end; whether it did."""
        try:
            await asyncio.wait_for(asyncio.shield(self.ended), seconds)
        except TimeoutError:
            return False
        return True


def _settle(ended: asyncio.Future[None]) -> None:
    if not ended.done():
        ended.set_result(None)
