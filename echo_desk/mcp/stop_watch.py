"""Stop reaching an MCP call while it waits on its loop.

Stop sets ``ctx.cancel_event``, a ``threading.Event``, from another thread; it wakes nobody on
the loop, so each waiting call is looked at every ``CANCEL_POLL_SECONDS``. One timer per loop
looks at every call waiting there, and is armed only while a call waits: a timer of its own for
each call (armed, then cancelled: ~15 Python calls) cost every call, and nearly every call ends
long before its first look.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from echo_desk.tools import ToolExecutionContext

#: How often a waiting call's ``ctx.cancel_event`` is looked at.
CANCEL_POLL_SECONDS = 0.05


class StopWatch:
    """Cancels ``waited`` (the call's future, or the task awaiting it) at the first look after
    ``ctx.cancel_event`` is set, until ``close``; ``stopped`` says the person's Stop did it."""

    __slots__ = ("_ctx", "_waited", "_watches", "stopped")

    def __init__(self, ctx: ToolExecutionContext, waited: asyncio.Future[Any]) -> None:
        self.stopped = False
        self._ctx = ctx
        self._waited = waited
        loop = waited.get_loop()  # the caller's (no look-up of the running loop: a getpid on 3.11)
        watches = _watches_by_loop.get(loop)
        if watches is None:
            watches = _watches_by_loop[loop] = set()
            loop.call_later(CANCEL_POLL_SECONDS, _look_at_all, loop)
        watches.add(self)
        self._watches = watches

    def close(self) -> None:
        self._watches.discard(self)

    def _watching(self) -> bool:
        """Look once: whether to keep watching."""
        if self._waited.done():
            return False
        if self._ctx.cancel_event.is_set():
            self.stopped = True
            self._waited.cancel()
            return False
        return True


#: The calls waiting on each loop (weakly keyed: nothing here keeps a loop alive).
_watches_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[StopWatch]] = weakref.WeakKeyDictionary()


def _look_at_all(loop: asyncio.AbstractEventLoop) -> None:
    watches = _watches_by_loop.get(loop)
    if watches is None:
        return
    for watch in [w for w in watches if not w._watching()]:
        watches.discard(watch)
    if watches:
        loop.call_later(CANCEL_POLL_SECONDS, _look_at_all, loop)
    else:  # nothing waits: the next call to wait arms the timer again
        del _watches_by_loop[loop]
