"""A tool's readiness, asked in one place that never lets the answer bring anything down.

``is_ready()`` and ``readiness_detail()`` are a tool author's code (a plugin's keyring lookup,
an MCP server's state): one that raises makes that tool not ready, with a reason, and is logged
(once: the catalog asks on a timer). Before, it crashed ``echo-desk tools list`` and every turn
of the agent, since the tools offered to the model are asked for each turn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from echo_desk.i18n import N_, for_person
from echo_desk.tools.base import Tool

log = logging.getLogger(__name__)

#: The failures already logged, by tool and exception (the catalog asks every few seconds).
_logged: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Readiness:
    ready: bool
    #: Why not, as the tool said it (a plugin's message id, or Echo Desk's ``for_person``: the
    #: model's English, the person's sentence with ``said_by_tool``); '' when ready.
    detail: str = ""
    #: What the check raised (its words belong in a tooltip or a log, not in a sentence).
    error: Exception | None = None


READY = Readiness(True)


def readiness_of(tool: Tool) -> Readiness:
    """Whether ``tool`` is ready and why not; a check that raises says the tool is not ready."""
    try:
        if tool.is_ready():
            return READY
        return Readiness(False, tool.readiness_detail())
    except Exception as exc:  # a plugin's code: any failure means "not ready"
        key = (tool.name, type(exc).__name__, str(exc))
        if key not in _logged:
            _logged.add(key)
            log.warning("the readiness check of tool %r raised; it counts as not ready", tool.name, exc_info=exc)
        words = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return Readiness(False, for_person(f"its readiness check failed ({words})",
                                           N_("its readiness check failed")), exc)
