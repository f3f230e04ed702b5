"""A model download running on a worker thread, with progress, a real cancel and clear errors.

The manager's ``download_model`` is a coroutine; it runs on its own event loop in a
``marshal.BackgroundOp`` worker so hashing and disk writes never touch the UI thread.
Cancelling cancels that loop's task at once (even while the server is silent); the
``.partial`` file stays, so the next download of the same URL resumes with HTTP Range.
"""

from __future__ import annotations

import asyncio
import errno
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx

from echo_desk.i18n import N_, _, deferred, shown
from echo_desk.providers.local.manager import ModelFileError, download_model
from echo_desk.providers.local.verify import is_gguf, recorded_sha256
from echo_desk.ui.core import marshal
from echo_desk.ui.widgets.failure_text import failure_reason

_SHA256 = re.compile(r"[0-9a-f]{64}")
_UI_INTERVAL = 0.1  # seconds between progress updates sent to the UI thread


class DownloadCancelled(Exception):
    """The person pressed Cancel; the partial file was kept."""


def check_inputs(url: str, sha256: str) -> str | None:
    """The reason the URL / sha256 pair cannot be downloaded, or None when it can."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return _("Enter an http:// or https:// address.")
    if not _SHA256.fullmatch(sha256.strip().lower()):
        return _("The expected sha256 must be 64 hexadecimal characters.")
    return None


def target_for(url: str, sha256: str, folder: Path) -> Path:
    """Where the file goes: the URL's file name in ``folder``, made unique per expected hash."""
    name = Path(unquote(urlsplit(url).path)).name or "model.gguf"
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    if not name.lower().endswith(".gguf"):
        name += ".gguf"
    target = folder / name
    if target.exists() and recorded_sha256(target) != sha256:
        # Never overwrite another model: a different file of that name gets its own name.
        target = folder / f"{target.stem}-{sha256[:12]}{target.suffix}"
    return target  # a .partial of this name is resumed (a wrong one fails the hash and is deleted)


def describe_error(exc: BaseException, folder: Path) -> str:
    """A sentence a person can act on, for anything the download raised, in their language:
    never the exception's own English (``[Errno 111] Connection refused``), which
    ``technical_detail`` keeps for the tooltip."""
    cause = exc.__context__ if isinstance(exc, ModelFileError) else exc
    if isinstance(cause, httpx.ConnectError):
        return _("Could not connect to the server. Check the address and your network, then download again.")
    if isinstance(cause, httpx.TimeoutException):
        return _("The server stopped answering. Download again to resume.")
    if isinstance(exc, ModelFileError):
        return shown(exc.reason)  # Echo Desk's own sentence, said in the language of the moment
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return _("The disk is full ({folder}). Free some space and download again: it resumes "
                 "where it stopped.").format(folder=folder)
    if isinstance(exc, OSError):
        return _("Could not write the model file ({reason}).").format(reason=failure_reason(exc))
    if isinstance(exc, httpx.TransportError):
        return _("The connection to the server broke off. Download again to resume.")
    return _("The download failed ({reason}).").format(reason=failure_reason(exc))


class DownloadJob:
    """One download: ``start()`` it, ``cancel()`` it from the UI; callbacks arrive on the UI thread.

    ``on_progress(done, total_or_None, bytes_per_second)``, then exactly one of
    ``on_done(path)`` / ``on_failed(exc)`` (``DownloadCancelled`` when cancelled).
    """

    def __init__(self, url: str, sha256: str, target: Path, *,
                 on_progress: Callable[[int, int | None, float], None],
                 on_done: Callable[[Path], None], on_failed: Callable[[BaseException], None]) -> None:
        self.url = url.strip()
        self.sha256 = sha256.strip().lower()
        self.target = target
        self._on_progress = on_progress
        self._on_done = on_done
        self._on_failed = on_failed
        self._lock = threading.Lock()
        self._cancelled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Path] | None = None
        self._first: tuple[float, int] | None = None  # (time, bytes) of the first block: speed
        self._latest: tuple[int, int | None] = (0, None)
        self._sent: tuple[int, int | None] | None = None

    @property
    def partial(self) -> Path:
        return self.target.with_name(self.target.name + ".partial")

    def start(self) -> None:
        marshal.BackgroundOp(self._work).on_success(self._finished).on_failure(self._on_failed).run()

    def cancel(self) -> None:
        """Stop now (thread-safe); the partial file is kept for a later resume."""
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    # -- worker thread ------------------------------------------------------------------------
    def _work(self) -> Path:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self._main(loop))
        finally:
            with self._lock:  # a later cancel() has nothing left to stop
                self._loop = self._task = None
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _main(self, loop: asyncio.AbstractEventLoop) -> Path:
        task = asyncio.ensure_future(download_model(self.url, self.target, sha256=self.sha256,
                                                    progress=self._progress))
        with self._lock:
            self._loop, self._task = loop, task
            if self._cancelled:
                task.cancel()
        ticker = asyncio.ensure_future(self._tick())
        try:
            path = await task
        except asyncio.CancelledError:
            raise DownloadCancelled() from None
        finally:
            ticker.cancel()
        if not is_gguf(path):  # the hash matched what was asked for, but it cannot run
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".verified").unlink(missing_ok=True)
            raise ModelFileError(deferred(N_("The downloaded file is not a GGUF model; it was deleted.")))
        return path

    def _progress(self, done: int, total: int | None) -> None:
        # Called for every block: remember the latest; the ticker sends it at most 10 times a second.
        now = time.monotonic()
        if self._first is None:
            self._first = (now, done)
        self._latest = (done, total)
        if done == total:
            self._send(now)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_UI_INTERVAL)
            self._send(time.monotonic())

    def _send(self, now: float) -> None:
        if self._first is None or self._latest == self._sent:
            return
        self._sent = self._latest
        done, total = self._latest
        started, base = self._first
        speed = (done - base) / (now - started) if now > started else 0.0
        marshal.run_on_main(self._on_progress, done, total, speed)

    def _finished(self, path: Path) -> None:
        self._on_done(path)  # a Cancel that came after the last byte and the hash check is moot
