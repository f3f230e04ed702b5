"""The one way work crosses threads in the UI.

* ``run_on_main(fn, *args)`` / ``@ensure_main_thread``: run a callable on the Qt main thread
  (immediately when already there, queued otherwise). Engine callbacks arrive through these.
* ``call_on_main(fn, *args)``: the same, returning a ``concurrent.futures.Future``; when ``fn``
  returns an awaitable it is scheduled on the main (qasync) loop and the future completes with
  its result. A caller on any thread/loop awaits it with ``asyncio.wrap_future``.
* ``BackgroundOp(fn).on_success(...).on_failure(...).run()``: the one builder for blocking work
  off the UI thread; callbacks come back on the main thread.
* ``spawn(coro)``: start a coroutine on the main loop, keep a reference, log its failure.

Widgets never touch threads, executors or ``asyncio`` tasks directly; they use these.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Generic, ParamSpec, TypeVar, TypeVarTuple

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot

if TYPE_CHECKING:
    # asyncio and the thread pools load after the window's first frame, with the first task.
    import asyncio
    import concurrent.futures

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class _Invoker(QObject):
    """Lives on the main thread; a queued signal delivers closures to it."""

    call = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.call.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _run(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:  # a failing callback must not take the event loop down
            log.exception("callback on the main thread failed")


_invoker: _Invoker | None = None
_invoker_lock = threading.Lock()
_executor: concurrent.futures.ThreadPoolExecutor | None = None
_serial: concurrent.futures.ThreadPoolExecutor | None = None
_tasks: set[asyncio.Task[object]] = set()


def _get_invoker() -> _Invoker:
    global _invoker
    with _invoker_lock:
        if _invoker is None:
            app = QCoreApplication.instance()
            if app is None:
                raise RuntimeError("marshal needs a QApplication")
            _invoker = _Invoker()
            if _invoker.thread() is not app.thread():
                _invoker.moveToThread(app.thread())
        return _invoker


def install() -> None:
    """Create the main-thread invoker now (call once from the main thread at start-up)."""
    _get_invoker()


@contextlib.contextmanager
def asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Give a qasync loop what ``asyncio``'s own ``run_forever`` installs and qasync does not.

    Without these hooks an async generator abandoned mid-way (an HTTP stream closed early) is
    finalized synchronously by the garbage collector: "async generator ignored GeneratorExit"
    and a connection left half-closed. With them its ``aclose()`` runs on the loop; the loop's
    remaining generators are closed when the block ends.
    """
    import asyncio

    old = sys.get_asyncgen_hooks()
    base = asyncio.BaseEventLoop
    sys.set_asyncgen_hooks(firstiter=functools.partial(base._asyncgen_firstiter_hook, loop),  # type: ignore[attr-defined]
                           finalizer=functools.partial(base._asyncgen_finalizer_hook, loop))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        if not loop.is_closed() and not loop.is_running():
            loop.run_until_complete(loop.shutdown_asyncgens())
        sys.set_asyncgen_hooks(*old)


def is_main_thread() -> bool:
    app = QCoreApplication.instance()
    return app is not None and QThread.currentThread() is app.thread()


def run_on_main(fn: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> None:
    """Run ``fn(*args, **kwargs)`` on the main thread; direct call when already there."""
    if is_main_thread():
        fn(*args, **kwargs)
    else:
        _get_invoker().call.emit(functools.partial(fn, *args, **kwargs))


def ensure_main_thread(fn: Callable[P, None]) -> Callable[P, None]:
    """Decorator: the wrapped method always runs on the main thread (fire and forget)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        run_on_main(fn, *args, **kwargs)

    return wrapper


def call_on_main(fn: Callable[[*Ts], Awaitable[T] | T], *args: *Ts) -> concurrent.futures.Future[T]:
    """Run ``fn`` on the main thread and hand back its (awaited) result as a thread-safe future."""
    import concurrent.futures
    import inspect

    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def invoke() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            value = fn(*args)
        except BaseException as exc:  # noqa: BLE001 — everything, cancellation too, goes to the awaiting future
            future.set_exception(exc)
            return
        if inspect.isawaitable(value):
            task = spawn(value)
            future.main_task = task  # type: ignore[attr-defined]  # lets a cancelled caller cancel it

            def done(t: asyncio.Task[T]) -> None:
                if t.cancelled():
                    future.set_exception(concurrent.futures.CancelledError())
                elif t.exception() is not None:
                    future.set_exception(t.exception())
                else:
                    future.set_result(t.result())

            task.add_done_callback(done)
        else:
            future.set_result(value)

    run_on_main(invoke)
    return future


async def await_on_main(fn: Callable[[*Ts], Awaitable[T] | T], *args: *Ts) -> T:
    """From any thread's event loop: run ``fn`` on the main thread and await the result there.

    Cancelling the caller cancels the work on the main thread too (e.g. closes a dialog).
    """
    import asyncio

    future = call_on_main(fn, *args)
    try:
        result: T = await asyncio.wrap_future(future)
        return result
    except asyncio.CancelledError:
        def cancel_main() -> None:
            task = getattr(future, "main_task", None)
            if task is not None:
                task.cancel()

        run_on_main(cancel_main)
        raise


def spawn(coro: Awaitable[T]) -> asyncio.Task[T]:
    """Start ``coro`` on the main loop, keep it alive, and log (not swallow) its failure."""
    import asyncio

    task: asyncio.Task[T] = asyncio.ensure_future(coro)
    _tasks.add(task)

    def done(t: asyncio.Task[T]) -> None:
        _tasks.discard(t)
        if not t.cancelled() and t.exception() is not None:
            log.error("background task failed", exc_info=t.exception())

    task.add_done_callback(done)
    return task


def pending_tasks() -> list[asyncio.Task[object]]:
    return list(_tasks)


def _pool(serial: bool = False) -> concurrent.futures.ThreadPoolExecutor:
    global _executor, _serial
    import concurrent.futures

    if serial:
        if _serial is None:
            _serial = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="echo-desk-serial")
        return _serial
    if _executor is None:
        _executor = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="echo-desk-bg")
    return _executor


class BackgroundOp(Generic[T]):
    """Blocking work off the UI thread, callbacks on the UI thread.

    ``BackgroundOp(load, path).on_success(show).on_failure(report).run()``
    """

    def __init__(self, fn: Callable[[*Ts], T], *args: *Ts) -> None:
        self._work: Callable[[], T] = functools.partial(fn, *args)
        self._success: Callable[[T], None] | None = None
        self._failure: Callable[[BaseException], None] | None = None
        self._awaited = False

    def on_success(self, cb: Callable[[T], None]) -> BackgroundOp[T]:
        self._success = cb
        return self

    def on_failure(self, cb: Callable[[BaseException], None]) -> BackgroundOp[T]:
        self._failure = cb
        return self

    def run(self, *, serial: bool = False) -> concurrent.futures.Future[T]:
        """Start the work. ``serial=True``: one after another, in submission order (e.g. the
        conversation store's writes)."""
        future = _pool(serial).submit(self._work)

        def done(f: concurrent.futures.Future[T]) -> None:
            if f.cancelled():
                return
            exc = f.exception()
            if exc is not None:
                if self._failure is not None:
                    run_on_main(self._failure, exc)
                elif not self._awaited:  # an awaiting caller gets the exception itself
                    log.error("background operation failed", exc_info=exc)
            elif self._success is not None:
                run_on_main(self._success, f.result())

        future.add_done_callback(done)
        return future

    async def run_async_serial(self) -> T:
        """Await the work queued behind every earlier ``serial`` operation."""
        import asyncio

        self._awaited = True
        return await asyncio.wrap_future(self.run(serial=True))

    async def run_async(self) -> T:
        """Await the work from the main loop (callbacks still fire)."""
        import asyncio

        self._awaited = True
        return await asyncio.wrap_future(self.run())


async def shutdown(grace: float = 5.0) -> None:
    """Cancel our tasks and stop the worker pool (called once when the app quits)."""
    import asyncio

    global _executor, _serial
    tasks = [t for t in _tasks if not t.done()]
    for t in tasks:
        t.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=grace)
    if _serial is not None:
        # Pending writes (the conversation store) are finished, not dropped.
        serial, _serial = _serial, None
        serial.shutdown(wait=True)
    if _executor is not None:
        executor, _executor = _executor, None
        # At quit a short block is fine; it guarantees no worker thread outlives the app.
        executor.shutdown(wait=True, cancel_futures=True)
