"""Starting, checking and stopping the built-in llama.cpp server as a managed child process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from echo_desk.agent.model import ModelError, ModelErrorKind, model_said
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_
from echo_desk.providers.local.profiles import ModelProfile
from echo_desk.store.paths import cache_dir
from echo_desk.store.private import open_private


def _ending(pid: int) -> bool:
    """Whether ``pid``'s main thread has already ended (Linux: state Z or X in ``/proc``).

    A killed server ends thread by thread; its main thread is a zombie at once, but ``waitpid``
    (so ``poll()``) reports the process only when the last thread is gone. Until then its
    socket may still take a connection and break it: the server is not running any more.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (not Linux), or gone already
        return False
    fields = stat.rsplit(")", 1)[-1].split()  # the name in brackets may hold spaces
    return bool(fields) and fields[0] in ("Z", "X")


@dataclass(frozen=True)
class ServerInfo:
    url: str
    pid: int
    start_seconds: float


LOG_KEEP_BYTES = 2 * 1024 * 1024
#: Seconds a server stopped while starting gets (half for the lifeline, half after SIGTERM).
_HALF_STARTED_GRACE = 0.5


def default_threads() -> int:
    """One core left for the window and everything else, for reading the prompt and writing the
    answer alike (``bench/local_threads.py``, a 2-core machine). llama.cpp's threads spin while
    they wait for each other: while other programs kept both cores busy, 2 threads wrote 0.26-0.47×
    as fast as 1. Reading with both cores was 1.6× as fast when the machine was idle, but 0.71-0.76×
    when it was busy (the server runs in a session of its own, and the kernel shares the cores
    between sessions), so reading keeps one thread too."""
    return max(1, (os.cpu_count() or 2) - 1)


def _log_tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


class LlamaServer:
    """llama.cpp's server on ``127.0.0.1`` with a kernel-chosen port, owned by this process.

    The child runs ``echo_desk.providers.local.child``; its stdin is our lifeline to it (see
    there). Its log goes to ``cache_dir()/logs/llama-server.log`` for diagnosis.
    """

    def __init__(
        self,
        model_path: Path,
        profile: ModelProfile,
        *,
        threads: int | None = None,
        batch_threads: int | None = None,
        start_timeout: float = 120.0,
        log_path: Path | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.profile = profile
        self.threads = threads
        self.batch_threads = batch_threads
        self.start_timeout = start_timeout
        self.log_path = log_path or cache_dir() / "logs" / "llama-server.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self.info: ServerInfo | None = None

    @property
    def running(self) -> bool:
        if self._proc is None or self._proc.poll() is not None:
            return False
        # poll() keeps saying "running" if something else already reaped the child.
        try:
            os.kill(self._proc.pid, 0)
        except ProcessLookupError:
            return False
        return not _ending(self._proc.pid)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def _command(self) -> list[str]:
        config = {
            "model": str(self.model_path),
            "context_size": self.profile.context_size,
            "chat_template": self.profile.chat_template or "",
            "threads": self.threads or default_threads(),
            "batch_threads": self.batch_threads or self.threads or default_threads(),
            "parent_pid": os.getpid(),
        }
        return [sys.executable, "-m", "echo_desk.providers.local.child", json.dumps(config)]

    async def start(self) -> ServerInfo:
        """Start the child, wait for its address and a healthy ``/health``. Idempotent."""
        if self.running and self.info:
            return self.info
        if not self.model_path.is_file():
            raise ModelError(
                model_said(N_("The local model file {path} is missing."), path=str(self.model_path)),
                kind=ModelErrorKind.NOT_FOUND,
            )
        began = time.monotonic()
        self._spawn()
        try:
            url = await asyncio.wait_for(asyncio.to_thread(self._read_address), self.start_timeout)
            await self._wait_healthy(url, began + self.start_timeout)
        except BaseException:
            # Stop (or a failure) while starting: a half-started server has nothing to finish, and
            # while it loads the model its lifeline thread may not run for seconds; SIGTERM soon.
            await self.stop(grace=_HALF_STARTED_GRACE)
            raise
        assert self._proc is not None
        self.info = ServerInfo(url=url, pid=self._proc.pid, start_seconds=time.monotonic() - began)
        return self.info

    def _spawn(self) -> None:
        # Appended, so what a crashed server wrote is still there after the restart; started
        # afresh once it passes a size worth keeping.
        try:
            append = self.log_path.stat().st_size < LOG_KEEP_BYTES
        except OSError:
            append = False
        with open_private(self.log_path, "ab" if append else "wb") as log:
            self._proc = subprocess.Popen(
                self._command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,  # own process group: a terminal's Ctrl-C is ours to handle
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )

    def _read_address(self) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        stdout: IO[bytes] = self._proc.stdout
        for raw in stdout:
            try:
                message = read_json(raw)
            except ValueError:
                continue  # stray output from native code
            if isinstance(message, dict) and message.get("url"):
                return str(message["url"])
            if isinstance(message, dict) and message.get("error"):
                raise self._start_error(str(message["error"]))
        raise self._start_error(model_said(N_("the server process exited")))

    def _start_error(self, reason: str) -> ModelError:
        tail = _log_tail(self.log_path)
        said = model_said(N_("The built-in model server did not start ({reason}). Its log is in “{log}”."),
                          reason=reason, log=str(self.log_path))
        # The log's last lines on their own lines: the server's words, never translated.
        return ModelError(
            model_said(N_("{said}\n{log_tail}"), said=said, log_tail=tail) if tail else said,
            kind=ModelErrorKind.SERVER,
        )

    async def _wait_healthy(self, url: str, deadline: float) -> None:
        async with httpx.AsyncClient(timeout=5.0) as client:
            while True:
                try:
                    response = await client.get(f"{url}/health")
                    if response.status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if not self.running:
                    raise self._start_error(model_said(N_("the server process exited")))
                if time.monotonic() > deadline:
                    raise self._start_error(model_said(N_("it did not answer in time")))
                await asyncio.sleep(0.1)  # polling a condition with a deadline, not a fixed wait

    async def stop(self, grace: float = 10.0) -> None:
        """Close the lifeline and wait; escalate to SIGTERM, then SIGKILL, on the child's group."""
        proc, self._proc, self.info = self._proc, None, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None and proc.poll() is None:
                    try:
                        os.killpg(proc.pid, sig)
                    except ProcessLookupError:
                        break
                try:
                    await asyncio.to_thread(proc.wait, grace / 2)
                    return
                except subprocess.TimeoutExpired:
                    continue
        finally:
            # Closed once the child is gone: a start still reading it holds the reader's lock, and
            # closing it first would wait for that read (seconds while the model loads).
            try:
                if proc.stdout:
                    proc.stdout.close()
            except OSError:
                pass
