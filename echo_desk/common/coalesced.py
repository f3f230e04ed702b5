"""An async job that runs one at a time, however often it is asked for.

For work started by what another program sends as often as it likes (an MCP server's "my tools
changed" or "this resource changed"): asking while a run is going on asks for one more run after
it, not one run per message. The job reads the newest state itself, so the last run sees the last
change. Use it on one event loop; it holds no lock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable


class Coalesced:
    def __init__(self, job: Callable[[], Awaitable[None]]) -> None:
        self._job = job
        self._running = False
        self._again = False

    @property
    def running(self) -> bool:
        return self._running

    async def run(self) -> None:
        """Run the job, or, if it is running, have it run once more when it ends."""
        if self._running:
            self._again = True
            return
        self._running = True
        try:
            while True:
                self._again = False
                await self._job()
                if not self._again:
                    return
        finally:
            self._running = False
