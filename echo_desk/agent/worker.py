"""Tool worker threads: each runs its own asyncio loop, so a handler that blocks (even
``time.sleep`` inside ``async def``) stalls neither the caller's loop nor other tools.

Calls go to an idle worker; when every worker is busy a new one is started, up to
``max_workers``. A worker stuck in a blocking handler simply stays busy until it returns;
the caller's timeout does not wait for it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


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

    async def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Await ``coro`` run on a worker, from the caller's loop.

        Cancellation propagates to the handler. On ``timeout`` the handler is cancelled and
        ``TimeoutError`` raised at once, even if the handler's thread is blocked.
        """
        future = self.submit(coro)
        waiter = asyncio.wrap_future(future)
        if timeout is None:
            return await waiter
        timed_out = False

        def expire() -> None:
            nonlocal timed_out
            timed_out = True
            waiter.cancel()

        timer = asyncio.get_running_loop().call_later(timeout, expire)
        try:
            return await waiter
        except asyncio.CancelledError:
            if timed_out:
                raise TimeoutError(f"timed out after {timeout:g} s") from None
            raise
        finally:
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
