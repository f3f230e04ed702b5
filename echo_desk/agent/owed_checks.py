"""At a start: the checks of sandboxed commands (and MCP servers) that the last Echo Desk process
owed when it was killed, or quit before a late check ended (``store.owed_checks``), made now.

Each is made from its kept snapshot (``sandbox.owed``), kept as made in its store (so a second
kill before the person is told does not make it again), recorded in the audit log, and written
into its call's saved message (a sub-agent's call: its step in the saved ``delegate`` transcript,
nested in its parent's step for a sub-agent's sub-agent),
whose card then says what was found and that it was found after a restart. The person is told by
whoever shows ``OwedChecksStore.untold()`` (the app's notice).

One pass at a time in a process (``_one_pass``): a sandboxed server about to take its snapshot of
a folder makes the owed checks first (``Runtime.make_owed_checks_first``), and must wait for a pass
already under way, whose rows are then this process's and not listed as owed: a snapshot taken
before the pass ended would hold what was planted as the folder's own (``mcp.owed_server_checks``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.agent.sources import ToolSource
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.sandbox.owed_failure import OwedFailure
from echo_desk.store.audit import AuditLog, checked_after_restart
from echo_desk.store.conversations import CONVERSATIONS_FILE, ConversationStore
from echo_desk.store.owed_checks import OwedCheck, OwedChecksStore
from echo_desk.tools.planted import Planted
from echo_desk.tools.planted_told import named_and_counted
from echo_desk.tools.sandbox_kept import PLANTED_MORE_KEY, capped

log = logging.getLogger(__name__)

#: The stored card's sandbox facts say the check was made at a start (``ui.chat.card_parse``).
CHECKED_AFTER_RESTART_KEY = "checked_after_restart"
#: ... and, when it could not be made, why (a ``sandbox.owed_failure.OwedFailure`` value).
NOT_CHECKED_KEY = "not_checked_after_restart"

#: Held for a whole pass (see the module's docstring): a server's start waits for one under way.
_one_pass = threading.Lock()


@dataclass(frozen=True)
class UpdatedCard:
    """A saved call's envelope brought up to date by its owed check (for a chat showing it)."""

    conversation_id: str
    call_id: str
    envelope: dict[str, Any]


class CardsToShow:
    """The saved cards brought up to date by passes nobody waits on to show them (a sandboxed
    server's start makes the owed checks first, maybe before the app's notice pass): kept until a
    chat listens (``listen``), then handed to it as they come, from the pass's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: list[UpdatedCard] = []
        self._listener: Callable[[UpdatedCard], None] | None = None

    def add(self, cards: Sequence[UpdatedCard]) -> None:
        with self._lock:
            listener = self._listener
            if listener is None:
                self._kept.extend(cards)
                return
        for card in cards:
            listener(card)

    def listen(self, listener: Callable[[UpdatedCard], None]) -> None:
        """``listener`` is told of each card: those kept so far at once, then each as it comes
        (from the thread that made the check: it must hand the card on to its own)."""
        with self._lock:
            kept, self._kept = self._kept, []
            self._listener = listener
        for card in kept:
            listener(card)


def make_owed_checks(owed: OwedChecksStore, audit: AuditLog, conversations: ConversationStore | None = None,
                     updated: list[UpdatedCard] | None = None, *, conversations_at: Path | None = None,
                     made: list[OwedCheck] | None = None) -> int:
    """Make every owed check whose process is gone; how many were made (or found impossible),
    each added to ``made``. Each saved card brought up to date is added to ``updated`` (a chat
    open on it shows it). Without ``conversations``, the saved cards are those of the store at
    ``conversations_at``, opened only when a check is owed. Waits for a pass under way in this process."""
    with _one_pass:
        checks = owed.owed()
        if not checks:
            return 0
        opened = ConversationStore(conversations_at) if conversations is None and conversations_at else None
        try:
            return _make(owed, audit, checks, conversations or opened, updated, made)
        finally:
            if opened is not None:
                opened.close()


def conversations_beside(owed: OwedChecksStore) -> Path:
    """The app's saved conversations, in the data folder the owed checks are kept in."""
    return owed.path.parent / CONVERSATIONS_FILE


def _make(owed: OwedChecksStore, audit: AuditLog, checks: list[OwedCheck], conversations: ConversationStore | None,
          updated: list[UpdatedCard] | None, made_here: list[OwedCheck] | None) -> int:
    made = 0
    for check in checks:
        if not owed.claim(check):
            continue  # another process (the app, the CLI) started at once and makes it
        made += 1
        if made_here is not None:
            made_here.append(check)
        planted, error = _check(check)
        owed.checked(check.id, [p.to_json() for p in planted], error)
        try:
            audit.append(checked_after_restart(conversation_id=check.conversation_id, call_id=check.call_id,
                                               tool=check.tool, workspace=check.workspace, started=check.at,
                                               planted=planted, error=error, at=time.time(), server=check.server,
                                               source=str(ToolSource.mcp(check.server)) if check.server else "builtin",
                                               client=check.client))
        except Exception:  # the notice still tells it
            log.exception("the check owed for %s could not be recorded in the audit log", _of(check))
        if conversations is not None and check.conversation_id:
            try:
                card = _update_card(conversations, check, planted, error)
                if card is not None and updated is not None:
                    updated.append(card)
            except Exception:
                log.exception("the saved message of call %s could not be brought up to date", check.call_id)
    return made


def _check(check: OwedCheck) -> tuple[tuple[Planted, ...], str]:
    try:
        planted = sandbox_owed.check_owed(check.snapshot)
    except sandbox_owed.UnreadableSnapshot as exc:
        # The row and the record keep the kind, which the person reads in their own language;
        # the detail (another process's words, in English) is for the log.
        log.warning("the check owed for %s could not be made: its snapshot does not read back (%s: %s)",
                    _of(check), exc.kind.value, exc)
        return (), exc.kind.value
    except Exception:  # one bad check must not keep the others or the start from happening
        log.exception("the check owed for %s failed", _of(check))
        return (), OwedFailure.CHECK_FAILED.value
    log.warning("the check owed for %s was made after a restart; put aside or back: %s", _of(check),
                named_and_counted(planted, lambda p: f"{p.shown} ({p.change.value})") or "nothing")
    return planted, ""


def _of(check: OwedCheck) -> str:
    """The check's owner, as the log names it."""
    return f"MCP server {check.server}" if check.server else f"call {check.call_id}"


def _update_card(conversations: ConversationStore, check: OwedCheck, planted: Sequence[Planted],
                 error: str) -> UpdatedCard | None:
    """The call's saved message (when it was saved: a kill while the command ran leaves none)
    says what the check found, as the card of a check made at once would, and when it was made
    (or why it could not be: then nothing is said found). A sub-agent's call has no message of
    its own: its step in the saved transcript of the ``delegate`` call that ran it is updated
    instead (its nested card, and the delegate card's header mark, read it there); for a
    sub-agent's sub-agent, in the transcript nested in its parent's step. The row names those
    ``delegate`` calls (``OwedCheck.held_by``); an older row's call is looked for: its own
    message, else the newest transcript holding it. The envelope written, with the call id of
    the message it belongs to, if one was."""
    held_by = check.held_by
    if not held_by:  # a conversation's own call, or an older row's: its own message first
        found = conversations.tool_envelope(check.conversation_id, check.call_id)
        if found is not None and isinstance(found[1].get("sandbox"), dict):
            node, envelope = found
            envelope = {**envelope, "sandbox": _checked_facts(envelope["sandbox"], check, planted, error)}
            return _written(conversations, check, node, check.call_id, envelope)
        if held_by is not None:
            return None  # a conversation's own call, whose message was not saved (or keeps no sandbox)
    holding = conversations.tool_envelope_holding(check.conversation_id, check.call_id, held_by or ())
    if holding is None:
        return None
    node, holder, envelope = holding
    steps = _step_checked(envelope["transcript"], (held_by or ())[1:], check,
                          lambda sandbox: _checked_facts(sandbox, check, planted, error))
    if steps is None:
        return None  # its step kept no sandbox facts: nothing there says a check is to come
    return _written(conversations, check, node, holder, {**envelope, "transcript": steps})


def _written(conversations: ConversationStore, check: OwedCheck, node: str, holder: str,
             envelope: dict[str, Any]) -> UpdatedCard | None:
    if not conversations.replace_envelope(check.conversation_id, node, envelope):
        return None
    return UpdatedCard(check.conversation_id, holder, envelope)


def _step_checked(transcript: list[Any], inner: Sequence[str], check: OwedCheck,
                  checked: Callable[[dict[str, Any]], dict[str, Any]]) -> list[Any] | None:
    """``transcript`` with the sandbox facts of the call's step ``checked``: the step found in the
    transcripts nested along ``inner`` (``store.conversations.transcript_within``); ``None`` when
    no such step keeps sandbox facts."""
    if inner:
        for index, entry in enumerate(transcript):
            if isinstance(entry, dict) and entry.get("result") == inner[0] and isinstance(entry.get("transcript"), list):
                steps = _step_checked(entry["transcript"], inner[1:], check, checked)
                if steps is not None:
                    return [*transcript[:index], {**entry, "transcript": steps}, *transcript[index + 1:]]
        return None
    steps = [{**entry, "sandbox": checked(entry["sandbox"])}
             if isinstance(entry, dict) and entry.get("result") == check.call_id
             and isinstance(entry.get("sandbox"), dict) else entry
             for entry in transcript]
    return None if steps == transcript else steps


def _checked_facts(sandbox: dict[str, Any], check: OwedCheck, planted: Sequence[Planted],
                   error: str) -> dict[str, Any]:
    """A call's stored sandbox facts once its owed check found ``planted`` (or failed: ``error``)."""
    workspace = check.workspace
    entries = [p.to_json() if p.workspace else {**p.to_json(), "workspace": workspace} for p in planted]
    # What the check found replaces the first account whole (its count of plants past the cut too).
    facts = {**sandbox, "planted": entries, "checked_later": False, CHECKED_AFTER_RESTART_KEY: True,
             PLANTED_MORE_KEY: 0}
    if error:
        facts[NOT_CHECKED_KEY] = error
    return capped(facts)
