"""The CLI's start: the checks of sandboxed commands and MCP servers that an Echo Desk process
(the app, the CLI, the gateway's own engine: each keeps them, ``store.owed_checks``) owed when it
was killed, or quit before a late check ended, are made here too (``agent.owed_checks``), in a
thread beside the command, so that what was planted is not left in the folder until the app is
next started.

One line on stderr says how many were made, commands and servers apart, once the command ended
(so that it does not cut into the command's own output); what each found is left untold for the app's notice, which names every
path (and for Settings › Permissions › Activity, where each is recorded at once)."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from echo_desk.i18n import _, ngettext

if TYPE_CHECKING:
    from echo_desk.runtime import Runtime
    from echo_desk.store.owed_checks import OwedCheck

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Made:
    """The owed checks this start made: of commands, of MCP servers, and how many of them found
    something (or could not be made)."""

    commands: int = 0
    servers: int = 0
    to_look_at: int = 0


def make_owed_checks(runtime: Runtime) -> Made:
    """Make the checks owed by gone processes (the app's saved cards are brought up to date too)."""
    store = runtime.owed_checks
    if store is None:
        return Made()
    try:
        if not store.owed():
            return Made()  # the usual start: nothing more is opened for nothing
        made: list[OwedCheck] = []
        runtime.make_owed_checks(made=made)  # (the app's saved conversations, opened for it)
        ids = {check.id for check in made}
        servers = sum(1 for check in made if check.server)
        return Made(len(made) - servers, servers, sum(1 for r in store.untold() if r.id in ids and (r.planted or r.error)))
    except Exception:  # never the command's failure: the app's next start makes them
        log.exception("the checks owed since an earlier Echo Desk was closed could not be made")
        return Made()


def tell(made: Made, out: TextIO | None = None) -> None:
    """The one line, in the person's language, when any check was made."""
    if not made.commands and not made.servers:
        return
    what = _what(made)
    if made.to_look_at:
        line = _("Echo Desk checked {what} that an earlier Echo Desk was closed before checking, and something "
                 "needs your attention: open Echo Desk to see what (Settings › Permissions › Activity says it "
                 "too).").format(what=what)
    else:
        line = _("Echo Desk checked {what} that an earlier Echo Desk was closed before checking: nothing was "
                 "left that would run code later.").format(what=what)
    print(line, file=out or sys.stderr)


def _what(made: Made) -> str:
    """What was checked, counted: commands, servers, or both."""
    commands = ngettext("{count} sandboxed command", "{count} sandboxed commands", made.commands).format(
        count=made.commands)
    servers = ngettext("{count} sandboxed MCP server", "{count} sandboxed MCP servers", made.servers).format(
        count=made.servers)
    if not made.servers:
        return commands
    if not made.commands:
        return servers
    return _("{commands} and {servers}").format(commands=commands, servers=servers)
