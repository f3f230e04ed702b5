"""Whether the sandbox works on this system, in the person's language: the reason and the fix.

Worded from the engine's answer (``echo_desk.sandbox.availability``); the Sandbox settings page
and the approval dialog (a command that would run outside it) both show it.
"""

from __future__ import annotations

from echo_desk import sandbox
from echo_desk.i18n import _
from echo_desk.sandbox.detect import UNAVAILABLE


def reason_text(found: sandbox.Availability) -> str:
    """One line: "The sandbox works…" or "Sandbox unavailable: <why>" (bwrap's words as is)."""
    reason = _(found.reason).format(detail=found.detail)
    return reason if found.available else _(UNAVAILABLE).format(reason=reason)


def status_text(found: sandbox.Availability) -> str:
    """Why the sandbox works or not, and the fix, in the person's language."""
    reason = reason_text(found)
    return reason if not found.fix else f"{reason}\n{_(found.fix)}"
