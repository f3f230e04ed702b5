"""Retrying a turn whose answer was cut (a runaway or the token cap): what the model is told.

The built-in model answers at temperature 0, so the same prompt gives the same degenerate
answer again. A retry therefore adds one short note that names what went wrong and how to
avoid it; the person's own words are not repeated.
"""

from __future__ import annotations

from echo_desk.agent.model import ChatMessage
from echo_desk.agent.runaway import Runaway, RunawayKind
from echo_desk.agent.undo.notes import NOTE_PREFIX

#: A repeated span is quoted up to this length (it is model text, shown back to the model).
_UNIT_CHARS = 60


def retry_note(runaway: Runaway) -> ChatMessage:
    """The user-role note sent before a retried turn (English: the model reads it)."""
    if runaway.kind is RunawayKind.REPEATED:
        unit = runaway.unit.strip()[:_UNIT_CHARS]
        what = f"your last answer was stopped because it repeated {unit!r} {runaway.repeats} times"
        how = "Do not repeat yourself; read a file with a tool instead of writing its content from memory"
    elif runaway.kind is RunawayKind.CALL_TOO_LONG:
        what = f"your call to {runaway.tool} was stopped because its arguments grew too long"
        how = "Make a shorter call: change an existing file with edit_file, one small part at a time"
    else:
        what = "your last answer reached the length limit and was cut off"
        how = "Answer again, shorter" + (f"; keep the call to {runaway.tool} small" if runaway.tool else "")
    return ChatMessage(role="user", content=f"{NOTE_PREFIX} The person asked to try again: {what}. {how}.")
