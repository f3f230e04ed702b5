"""The MCP servers a client's list of its tools was answered without, because they were still
starting: said once for each new set of them, in the log and in the audit log (the Activity tab
shows it), whether the app answered the list or the gateway's own engine did."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from echo_desk.store.audit import AuditLog, tools_listed_without

log = logging.getLogger(__name__)


@dataclass
class LeftOut:
    """One client's lists, as they are answered (``listed``)."""

    client: str
    #: The app's log is for a developer (INFO); the gateway's goes to its client's log, where only
    #: WARNING is written (``cli.gateway``), and the person may look for it there.
    level: int = logging.INFO
    #: The servers the last list was answered without: a client listing again while the same ones
    #: start is not recorded again; once none is starting, the next set is news again.
    _last: list[str] = field(default_factory=list, init=False)

    def listed(self, starting: list[str], audit: AuditLog | None) -> None:
        """A list was answered while ``starting`` (by name, sorted) were still starting."""
        if starting and starting != self._last:
            log.log(self.level, "listed the tools of %s without those of MCP servers still starting: %s",
                    self.client, ", ".join(starting))
            if audit is not None:
                audit.append(tools_listed_without(self.client, time.time(), starting))
        self._last = starting
