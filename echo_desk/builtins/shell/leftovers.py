"""No process of a command outlives it: ``run_command`` runs under the reaper supervisor.

The shell and everything it starts live below a small supervisor (``echo_desk/sandbox/reaper.py``,
a child subreaper on Linux) that tells us the moment the command's *own* process exits — so a
background child still holding stdout no longer makes a finished command wait for its full
timeout — and, when told, ends every process the command left behind, ``setsid`` and
daemonized ones included, and says how many. Elsewhere (no ``/proc``, no ``prctl``) nothing is
wrapped and the process group kill is all there is.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from echo_desk.sandbox import reaper
from echo_desk.sandbox.helper import helper_command

#: After the command's own process exits, output is still read this long (a child finishing
#: its last write); then what is left is ended.
GRACE_SECONDS = 0.5
REAPER = Path(reaper.__file__)


def supported() -> bool:
    return sys.platform.startswith("linux") and Path("/proc/self/stat").exists()


class CommandLeash:
    """One command's supervisor: wrap the command line, learn its exit, end its leftovers."""

    def __init__(self) -> None:
        self._ours, self._theirs = socket.socketpair()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._watch: asyncio.Task[None] | None = None
        self._output: asyncio.StreamReader | None = None
        self.exit_code: int | None = None
        self.exited_at: float | None = None
        self.ended = 0

    @classmethod
    def create(cls) -> CommandLeash | None:
        """A leash where the platform supports one, else None (nothing is wrapped)."""
        return cls() if supported() else None

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return [*helper_command(reaper.__name__, REAPER), "--control-fd", str(self._theirs.fileno()), "--", *argv]

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self._theirs.fileno(),)

    async def started(self, output: asyncio.StreamReader | None) -> None:
        """Call once the supervisor is spawned (``output``: the command's stdout): our copy of
        its end of the socket is closed, listening begins."""
        self._output = output
        self._theirs.close()
        self._reader, self._writer = await asyncio.open_unix_connection(sock=self._ours)
        self._watch = asyncio.create_task(self._read_exit())

    async def _read_exit(self) -> None:
        assert self._reader is not None
        line = await self._reader.readline()
        if line.startswith(b"exit "):
            self.exit_code = int(line.split()[1])
            self.exited_at = time.monotonic()

    async def wait_done(self, output_ended: asyncio.Event) -> None:
        """Return once ``done()`` holds: the command's exit has been read, then either its output
        ended (``output_ended``, set by the caller's reader at EOF) or the grace is over. Waits on
        the supervisor's exit line, the event and a timer; never polls."""
        if self._watch is None:
            await asyncio.Event().wait()  # no supervisor: never done this way
        assert self._watch is not None
        await asyncio.wait({self._watch})  # its end, whatever it was (our own cancel still propagates)
        if self.exited_at is None:
            await asyncio.Event().wait()  # the supervisor went away without an exit line
        assert self.exited_at is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(asyncio.get_running_loop().time()
                                          + max(0.0, self.exited_at + GRACE_SECONDS - time.monotonic())):
                await output_ended.wait()

    def done(self) -> bool:
        """The command's own process has exited, and its output has ended or the grace is over."""
        if self.exited_at is None:
            return False
        output_ended = self._output is None or self._output.at_eof()
        return output_ended or time.monotonic() >= self.exited_at + GRACE_SECONDS

    async def end(self, timeout: float = 5.0) -> int:
        """End every process the command left (or the command itself, still running); how many."""
        if self._writer is None or self._reader is None:
            self._ours.close()
            return 0
        try:
            if self._watch is not None:
                self._watch.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._watch
            self._writer.write(b"end\n")
            async with asyncio.timeout(timeout):
                while line := await self._reader.readline():
                    if line.startswith(b"exit ") and self.exit_code is None:
                        self.exit_code = int(line.split()[1])
                    elif line.startswith(b"ended "):
                        self.ended = int(line.split()[1])
                        break
        except (OSError, TimeoutError, ValueError):
            pass
        finally:
            if self._watch is not None:
                self._watch.cancel()
            with contextlib.suppress(OSError, RuntimeError):
                self._writer.close()
        return self.ended
