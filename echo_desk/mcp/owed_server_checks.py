"""A sandboxed MCP server's check, kept as owed while it runs (``store.owed_checks``).

A server working in a folder the person chose is checked after its end (``connection``): with
Echo Desk killed meanwhile, the server dies with it and nothing checks what it left there. So
its snapshot is kept as owed just before it starts and settled once the check after its end
ran; a row left by a killed Echo Desk is made at the next start, as a command's is.

Before a server takes its snapshot, the checks an earlier Echo Desk owed are made first
(``make_earlier``): a snapshot taken before them holds what was planted as the folder's own, so
the server's checks would take what they put aside for a removal of the server's (a false entry
on its next call) and a planted change they put back for one to undo (the planted version back).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from echo_desk import sandbox
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.store.owed_checks import OwedChecksStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OwedServerChecks:
    """Where a sandboxed server's check is kept as owed, and how the earlier ones are made."""

    store: OwedChecksStore
    #: Makes the checks earlier processes owed (blocking; waits for a pass under way).
    make_earlier: Callable[[], None]

    def owe(self, server: str, launch: sandbox.Launch) -> int | None:
        """Keep ``server``'s check as owed (blocking: before it starts); its row's id. A store that
        fails is logged: the server starts, and its check after its end is made as always."""
        if not launch.guards:
            return None
        try:
            return self.store.owe(conversation_id="", call_id="", tool=server, server=server,
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
