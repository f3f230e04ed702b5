"""The CLI's start: the checks of sandboxed commands that an Echo Desk process (the app, or the
CLI: both keep them, ``store.owed_checks``) owed when it was killed, or quit before a late check
ended, are made here too (``agent.owed_checks``), in a thread beside the command, so that what a
command planted is not left in the folder until the app is next started.

One line on stderr says how many were made, once the command ended (so that it does not cut into
the command's own output); what each found is left untold for the app's notice, which names every
path (and for Settings › Permissions › Activity, where each is recorded at once)."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, TextIO

from echo_desk.i18n import ngettext

if TYPE_CHECKING:
    from echo_desk.runtime import Runtime

log = logging.getLogger(__name__)


def make_owed_checks(runtime: Runtime) -> tuple[int, int]:
    """Make the checks owed by gone processes: how many were made, and how many of them found
    something (or could not be made). The app's saved cards are brought up to date too."""
    store = runtime.owed_checks
    if store is None:
        return 0, 0
    try:
        if not store.owed():
            return 0, 0  # the usual start: nothing more is opened for nothing
        made = runtime.make_owed_checks()  # (the app's saved conversations, opened for it)
        return made, sum(1 for r in store.untold() if r.planted or r.error)
    except Exception:  # never the command's failure: the app's next start makes them
        log.exception("the checks owed since an earlier Echo Desk was closed could not be made")
        return 0, 0


def tell(made: int, to_look_at: int, out: TextIO | None = None) -> None:
    """The one line, in the person's language, when any check was made."""
    if not made:
        return
    stream = out or sys.stderr
    if to_look_at:
        line = ngettext("Echo Desk checked {count} sandboxed command that an earlier Echo Desk was closed before "
                        "checking, and something needs your attention: open Echo Desk to see what (Settings › "
                        "Permissions › Activity says it too).",
                        "Echo Desk checked {count} sandboxed commands that an earlier Echo Desk was closed before "
                        "checking, and something needs your attention: open Echo Desk to see what (Settings › "
                        "Permissions › Activity says it too).", made)
    else:
        line = ngettext("Echo Desk checked {count} sandboxed command that an earlier Echo Desk was closed before "
                        "checking: it had left nothing that would run code later.",
                        "Echo Desk checked {count} sandboxed commands that an earlier Echo Desk was closed before "
                        "checking: they had left nothing that would run code later.", made)
    print(line.format(count=made), file=stream)
