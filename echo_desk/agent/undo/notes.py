"""What the model is told, at its next turn, about changes the person reverted."""

from __future__ import annotations

from echo_desk.agent.model import ChatMessage
from echo_desk.store.changes import ChangeRecord

#: Opens every user-role message the engine writes for the model (revert and retry notes).
NOTE_PREFIX = "[Echo Desk]"


def is_engine_note(message: ChatMessage) -> bool:
    """A note the engine added for the model, not words of the person: the window does not show
    it as theirs, live or when the conversation is opened again."""
    return message.role == "user" and message.content.startswith(NOTE_PREFIX)


def revert_note(records: list[ChangeRecord]) -> str:
    """One message naming every file whose change was reverted (empty when none)."""
    if not records:
        return ""
    lines = [f"{NOTE_PREFIX} Since your last step the person reverted your changes:"]
    for path in dict.fromkeys(r.path for r in records):
        mine = [r for r in records if r.path == path]
        oldest = min(mine, key=lambda r: r.id)
        if oldest.before_sha256 is None:
            what = "removed it again (it did not exist before your change)"
        elif mine[-1].after_sha256 is None:
            what = "put it back as it was before your change"
        else:
            what = "restored the content it had before your change"
        calls = ", ".join(dict.fromkeys(r.call_id for r in mine))
        lines.append(f"- the person reverted your change to {path} ({calls}): {what}.")
    lines.append("Read these files again before changing them.")
    return "\n".join(lines)
