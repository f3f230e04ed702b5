"""Tool worker threads: each runs its own asyncio loop, so a handler that blocks (even
``time.sleep`` inside ``async def``) stalls neither the caller's loop nor other tools.

Calls go to an idle worker; when every worker is busy a new one is started, up to
``max_workers``. A worker stuck in a blocking handler simply stays busy until it returns;
the caller's timeout does not wait for it.

A ``Deadline`` lets one round trip hold several steps, each with its own time limit (a tool's
preview, then its run): the worker starts the next step's limit itself, and the caller's timer
reads it only when it fires, so a step costs no extra wake-up of either thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Deadline:
    """The time limit of the step a handler is in, shared by the caller's loop and the worker.

    The worker calls ``next_step`` before each step after the first; the caller's timer, when
    it fires, either finds a later limit (and waits for it) or ends the round trip, after which
    no further step may start. Both sides take the lock, so a step never starts once the caller
    has given up (timed out or cancelled) — what the caller reports is what happened.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds if seconds is not None else None
        #: Steps started after the first (0: still in the first step).
        self.step = 0
        self.abandoned = False
        self._lock = threading.Lock()

    def next_step(self) -> bool:
        """Start the next step's limit; ``False`` when the caller has already given up."""
        with self._lock:
            if self.abandoned:
                return False
            self.step += 1
            if self.seconds is not None:
                self.at = time.monotonic() + self.seconds
            return True

    def abandon(self) -> int:
        """The caller gives up: no further step starts. Returns the step the handler was in."""
        with self._lock:
            self.abandoned = True
            return self.step

    def _reached(self, armed_at: float | None) -> float | None:
        """On the caller's timer: the later limit to wait for, or ``None`` (abandoned now)."""
        with self._lock:
            if self.at is not None and self.at != armed_at and self.at > time.monotonic():
                return self.at
            self.abandoned = True
            return None


class _LoopThread:
    def __init__(self, index: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.busy = 0
        ready = threading.Event()
        self.thread = threading.Thread(
            target=self._run, args=(ready,), name=f"echo-desk-tool-worker-{index}", daemon=True
        )
        self.thread.start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(ready.set)
        self.loop.run_forever()
        # Cancel whatever is still running so handlers see CancelledError, then close.
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()

    def stop(self) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.loop.stop)


class ToolWorkerPool:
    def __init__(self, *, max_workers: int = 32) -> None:
        self._max = max_workers
        self._workers: list[_LoopThread] = []
        self._lock = threading.Lock()
        self._closed = False

    def _pick(self) -> _LoopThread:
        with self._lock:
            if self._closed:
                raise RuntimeError("the tool worker pool is closed")
            for worker in self._workers:
                if worker.busy == 0:
                    worker.busy += 1
                    return worker
            if len(self._workers) < self._max:
                worker = _LoopThread(len(self._workers))
                self._workers.append(worker)
            else:
                worker = min(self._workers, key=lambda w: w.busy)
            worker.busy += 1
            return worker

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on a worker loop; cancelling the future cancels the coroutine."""
        worker = self._pick()
        future = asyncio.run_coroutine_threadsafe(coro, worker.loop)

        def done(_: concurrent.futures.Future[T]) -> None:
            with self._lock:
                worker.busy -= 1

        future.add_done_callback(done)
        return future

    async def run(self, coro: Coroutine[Any, Any, T], timeout: float | Deadline | None = None) -> T:
        """Await ``coro`` run on a worker, from the caller's loop.

        Cancellation propagates to the handler. On ``timeout`` the handler is cancelled and
        ``TimeoutError`` raised at once, even if the handler's thread is blocked. A ``Deadline``
        may be moved on by the handler (see ``Deadline.next_step``).
        """
        future = self.submit(coro)
        waiter = asyncio.wrap_future(future)
        deadline = timeout if isinstance(timeout, Deadline) else Deadline(timeout)
        if deadline.at is None:
            try:
                return await waiter
            except asyncio.CancelledError:
                deadline.abandon()
                raise
        loop = asyncio.get_running_loop()
        timed_out = False
        timer: asyncio.TimerHandle | None = None

        def expire(armed_at: float) -> None:
            nonlocal timed_out, timer
            later = deadline._reached(armed_at)
            if later is not None:
                timer = loop.call_later(later - time.monotonic(), expire, later)
                return
            timed_out = True
            waiter.cancel()

        timer = loop.call_later(deadline.at - time.monotonic(), expire, deadline.at)
        try:
            return await waiter
        except asyncio.CancelledError:
            deadline.abandon()
            if timed_out:
                raise TimeoutError(f"timed out after {deadline.seconds:g} s") from None
            raise
        finally:
            if timer is not None:
                timer.cancel()

    @property
    def size(self) -> int:
        return len(self._workers)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()
        for worker in workers:
            worker.thread.join(timeout=2)
