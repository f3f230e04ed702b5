"""What a command planted, as the sandbox's guard reports it: plain values, kept with the tools'
result types so that a call's result carries them (``ToolResult.planted``) to the transcript's
card and to the audit log without loading the guard."""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple


class Change(enum.StrEnum):
    CREATED = "created"
    CHANGED = "changed"
    REMOVED = "removed"


@dataclass(frozen=True)
class Planted:
    """One thing a command left that could make a program run code later, and what was done."""

    #: Relative to its workspace, ``/``-separated.
    path: str
    change: Change
    #: The version from before the command is in place again.
    put_back: bool = False
    #: Where what the command left was moved ('' when there was nothing to keep or it was too large).
    kept: str = ""
    #: What the command left could not be taken out of the workspace: it is still there.
    still_there: bool = False
    #: The workspace ``path`` is in (full path), when the command had more than one; '' when it
    #: had one, which the caller names (``ToolResult.planted_in``), and in records from before.
    workspace: str = ""

    @property
    def shown(self) -> str:
        """``path`` as text: a name's bytes that are not UTF-8 (``os.fsdecode`` makes them lone
        surrogates, which no UTF-8 store or JSON text takes) written as ``\\xff`` escapes."""
        return _text(self.path)

    def full(self, folder: str = "") -> str:
        """``shown`` in its own workspace, else in ``folder`` (the call's one workspace, a server's
        folder); as it is when neither is known."""
        where = self.workspace or folder
        return _text(os.path.join(where, self.path)) if where else self.shown

    def to_json(self) -> dict[str, object]:
        value: dict[str, object] = {"path": self.shown, "change": self.change.value, "put_back": self.put_back,
                                    "kept": _text(self.kept), "still_there": self.still_there}
        if self.workspace:
            value["workspace"] = _text(self.workspace)
        return value

    @property
    def english(self) -> str:
        """For the model (the card translates from the values)."""
        if self.still_there:
            done = "could not be removed: it is still in the workspace, do not use it"
        elif self.change is Change.REMOVED:
            done = "put back" if self.put_back else "could not be put back"
        else:
            done = f"moved to {_text(self.kept)}" if self.kept else "deleted"
            if self.change is Change.CHANGED:
                done += "; the earlier version is back" if self.put_back else "; the earlier version could not be put back"
        return f"{self.full()} ({self.change.value}; {done})"


def planted_of(value: object) -> list[Planted]:
    """``Planted.to_json`` entries read back, typed (one that does not read as one is left out)."""
    found: list[Planted] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        try:
            change = Change(str(item.get("change")))
        except ValueError:
            continue
        found.append(Planted(item["path"], change, item.get("put_back") is True, str(item.get("kept") or ""),
                             item.get("still_there") is True, str(item.get("workspace") or "")))
    return found


#: The key of the last entry of a list of ``to_json`` entries that was cut (an audit row's): how
#: many were left out (its ``total`` says how many there were). ``planted_of`` skips it.
MORE_KEY = "more"


def more_entry(more: int, total: int) -> dict[str, object]:
    """The last entry of a list of entries cut short: ``more`` left out of ``total``."""
    return {MORE_KEY: more, "total": total}


def more_of(value: object) -> int:
    """How many entries a list of ``to_json`` entries left out (its last, ``more_entry``); 0 when none."""
    last = value[-1] if isinstance(value, list) and value else None
    more = last.get(MORE_KEY) if isinstance(last, dict) and "path" not in last else None
    return more if isinstance(more, int) and not isinstance(more, bool) and more > 0 else 0


def _text(name: str) -> str:
    return os.fsencode(name).decode("utf-8", "backslashreplace")


class CheckedLater(NamedTuple):
    """What a sandbox that still ran when its command's result went left, checked once it ended
    (``ToolResult.later_check``): ``planted_in`` names the one workspace ``planted`` is relative to."""

    planted: tuple[Planted, ...]
    planted_in: str = ""
    #: Keys of the result's metadata as the checks left them, put over its own (a sub-agent's
    #: ``transcript``, whose calls' sandboxes were checked after it returned); ``None``: none change.
    metadata: Mapping[str, Any] | None = None
