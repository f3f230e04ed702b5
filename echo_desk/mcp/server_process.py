"""A stdio server's process, to end from any thread and wait for (a pidfd: never another process
that got its id since).

The manager restarts a sandboxed server when the person hides or protects a path; the restart runs
on the manager's loop, later. Until the old process is gone it still sees the disk as it was
started, so it is ended here, at once, before the change is reported done.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading

#: The reaper ends every process the server started, then exits (SIGKILL after a short grace).
ENDED_WITHIN = 5.0


class ServerProcess:
    def __init__(self, pid: int) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        with contextlib.suppress(OSError, AttributeError):  # (no pidfd: Linux before 5.3)
            self._fd = os.pidfd_open(pid)

    def end_now(self, within: float = ENDED_WITHIN) -> bool:
        """SIGTERM (the reaper then ends every process below it and exits), and wait until it has
        exited: ``True`` once it has, or had; ``False`` when it could not be ended so."""
        with self._lock:
            if self._fd is None:
                return False
            try:
                signal.pidfd_send_signal(self._fd, signal.SIGTERM)
            except ProcessLookupError:
                return True
            except OSError:
                return False
            readable, _, _ = select.select([self._fd], [], [], within)
            return bool(readable)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
