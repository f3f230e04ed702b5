"""What the model is told, at its next turn, about what a late sandbox check found.

A command whose sandbox still ran when its result went tells the model only that it is "checked when
they end" (``Envelope.later_check``); the card, the stored message and the audit row are brought up
to date when that check ends, but the model would go on using a file that was put aside, or plant it
again. What such a check found is owed to the conversation (or to the running sub-agent that made
the call) and told once, in one short note, at its next exchange (a sub-agent's: its next turn; one
that returned meanwhile owes it to its parent). A check that found nothing is not told.

The queue lives in memory, with the dispatcher: a late check only ends while the process that ran
the command runs (quitting cancels it and leaves the check to the next start, whose notice tells
the person), so only a quit between a check's end and the conversation's next exchange loses a note.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, replace

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.notes import NOTE_PREFIX
from echo_desk.tools.planted import CheckedLater, Planted
from echo_desk.tools.planted_told import MOST_NAMED, named_and_counted

#: A call id longer than this is cut (it is the model's own text, and only names the call).
LONGEST_CALL_ID = 64


@dataclass(frozen=True)
class LateFinding:
    """What one call's late check put aside or back, each entry naming its own workspace."""

    tool: str
    call_id: str
    planted: tuple[Planted, ...]


def owed_to(scope: Scope) -> str:
    """Whom a scope's findings are owed to: a conversation by its id (a reopened one has a new
    scope), a sub-agent or an unsaved conversation by its scope."""
    if scope.parent is None and scope.conversation_id:
        return scope.conversation_id
    return scope.id


class LateFindings:
    """Findings owed, per conversation or running sub-agent; safe from any thread (a check ends on
    the sandbox's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owed: dict[str, list[LateFinding]] = {}
        #: A sub-agent that returned: whom what it is still owed goes to (its parent).
        self._returned: dict[str, str] = {}

    def owe(self, key: str, finding: LateFinding) -> None:
        with self._lock:
            self._owed.setdefault(self._to(key), []).append(finding)

    def take(self, key: str) -> list[LateFinding]:
        """What ``key`` is owed, oldest first; it is owed no more."""
        with self._lock:
            return self._owed.pop(key, [])

    def returned(self, key: str, parent: str) -> None:
        """The sub-agent ``key`` returned: what it is owed, now and later, goes to ``parent``."""
        with self._lock:
            self._returned[key] = parent
            left = self._owed.pop(key, [])
            if left:
                self._owed.setdefault(self._to(parent), []).extend(left)

    def _to(self, key: str) -> str:
        while key in self._returned:
            key = self._returned[key]
        return key


def owe_when_checked(findings: LateFindings, scope: Scope, envelope: Envelope) -> None:
    """Once the late check of the call's sandbox ends, owe ``scope`` what it found (nothing when it
    found nothing, failed or was cancelled)."""
    if envelope.later_check is None:
        return
    key = owed_to(scope)

    def found(later: Future[CheckedLater]) -> None:
        if later.cancelled() or later.exception() is not None:
            return
        checked = later.result()
        if checked.planted:
            planted = tuple(p if p.workspace or not checked.planted_in else replace(p, workspace=checked.planted_in)
                            for p in checked.planted)
            findings.owe(key, LateFinding(envelope.tool, envelope.call_id, planted))

    envelope.later_check.add_done_callback(found)


def late_check_note(found: list[LateFinding]) -> str:
    """One message for the model about ``found`` (empty when nothing): the calls, then the entries,
    each capped as a command's own note is (``planted_told``)."""
    if not found:
        return ""
    named = [f"{f.tool} {_cut(f.call_id)}" for f in found[:MOST_NAMED]]
    if len(found) > MOST_NAMED:
        named.append(f"and {len(found) - MOST_NAMED:,} more")
    planted = [p for f in found for p in f.planted]
    what = named_and_counted(planted, lambda p: p.english)
    which = "call" if len(found) == 1 else "calls"
    return (f"{NOTE_PREFIX} The sandbox of your earlier {which} ({', '.join(named)}) still ran when the result "
            "reached you; it was checked when it ended. It had left files that make a program run code later "
            f"(git hooks or configuration, editor or shell start-up files): {what}. What was moved out is no "
            "longer in the workspace: do not use it, and do not try to work around this.")


def _cut(call_id: str) -> str:
    return call_id if len(call_id) <= LONGEST_CALL_ID else call_id[:LONGEST_CALL_ID - 1] + "…"
