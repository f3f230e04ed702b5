"""A sandboxed MCP server's check, kept as owed while it runs (``store.owed_checks``).

A server working in a folder the person chose is checked after its end (``connection``): with
Echo Desk killed meanwhile, the server dies with it and nothing checks what it left there. So
its snapshot is kept as owed just before it starts and settled once the check after its end
ran; a row left by a killed Echo Desk is made at the next start, as a command's is.

Before a server takes its snapshot, the checks an earlier Echo Desk owed are made first
(``make_earlier``): a snapshot taken before them holds what was planted as the folder's own, so
the server's checks would take what they put aside for a removal of the server's (a false entry
on its next call) and a planted change they put back for one to undo (the planted version back).
Checks another process still running claimed (a CLI or a gateway started at the same moment) are
waited for too (``before_snapshot``), up to ``CLAIMED_WAIT`` seconds: a claim whose process died
meanwhile is taken over and made here; past the deadline the server starts all the same, and the
log says so. They are waited for whatever their folder: a command's row names only the first of
its workspaces, so a row of another folder may still be a check of this one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from echo_desk import sandbox
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.store.owed_checks import OwedChecksStore

log = logging.getLogger(__name__)

#: How long a server's start waits for checks another live process claimed, at most.
CLAIMED_WAIT = 30.0
#: How often it looks again whether they were made (or their process died).
_LOOK_AGAIN = 0.1


def _pause() -> None:
    time.sleep(_LOOK_AGAIN)


@dataclass(frozen=True)
class OwedServerChecks:
    """Where a sandboxed server's check is kept as owed, and how the earlier ones are made."""

    store: OwedChecksStore
    #: Makes the checks earlier processes owed (blocking; waits for a pass under way).
    make_earlier: Callable[[], None]
    #: The connected app whose gateway engine starts the servers ('' : the app's, the CLI's).
    client: str = ""
    #: How long ``before_snapshot`` waits for checks another live process claimed.
    claimed_wait: float = CLAIMED_WAIT
    #: Between two looks at them (the tests' own, to act in between).
    pause: Callable[[], None] = field(default=_pause, repr=False)

    def before_snapshot(self, server: str) -> bool:
        """Before ``server`` takes its snapshot (blocking): every owed check made, here or by the
        live process that claimed it; whether they all were (``False``: the wait timed out)."""
        deadline = time.monotonic() + self.claimed_wait
        while True:
            self.make_earlier()  # (again: takes over the claims of a process that died meanwhile)
            try:
                elsewhere = self.store.being_made_elsewhere()
            except Exception:  # the store fails: the server's own check after its end still runs
                log.exception("MCP server %s: the checks other processes make could not be looked at", server)
                return False
            if not elsewhere:
                return True
            if time.monotonic() >= deadline:
                log.warning("MCP server %s starts before %d check(s) another Echo Desk process is making ended "
                            "(waited %.0f s): its snapshot may hold what they put aside", server, elsewhere,
                            self.claimed_wait)
                return False
            self.pause()

    def owe(self, server: str, launch: sandbox.Launch) -> int | None:
        """Keep ``server``'s check as owed (blocking: before it starts); its row's id. A store that
        fails is logged: the server starts, and its check after its end is made as always."""
        if not launch.guards:
            return None
        try:
            return self.store.owe(conversation_id="", call_id="", tool=server, server=server, client=self.client,
                                  workspace=str(launch.guards[0].workspace),
                                  snapshot=sandbox_owed.owed(launch.guards, launch.placeholders))
        except Exception:  # (sqlite3.Error, OSError, a snapshot that does not pickle: never the server's fault)
            log.exception("MCP server %s: its check could not be kept as owed; it is made after its end", server)
            return None

    def settle(self, owed_id: int | None) -> None:
        """The check after the server's end was made: nothing is owed (blocking)."""
        if owed_id is None:
            return
        try:
            self.store.settle(owed_id)
        except Exception:  # the next start makes it again: it finds nothing new, and says so
            log.exception("an MCP server's owed check that was made could not be marked as made")
