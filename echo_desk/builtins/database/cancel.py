"""Run a database coroutine so the Stop button ends it promptly."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from echo_desk.i18n import N_, for_person
from echo_desk.tools import CancelledByUser

T = TypeVar("T")

#: The cancel flag is a ``threading.Event`` set from the UI thread; check it this often.
POLL_SECONDS = 0.05


async def run_cancellable(coro: Coroutine[Any, Any, T], cancel_event: threading.Event, what: str) -> T:
    """Await ``coro``; if ``cancel_event`` is set first, cancel it (asyncpg then asks the
    server to cancel the statement) and raise ``CancelledByUser``."""
    task = asyncio.ensure_future(coro)
    while True:
        done, _ = await asyncio.wait({task}, timeout=POLL_SECONDS)
        if done:
            return task.result()
        if cancel_event.is_set():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise CancelledByUser(for_person(f"{what} was cancelled", N_("The statement was stopped.")))
