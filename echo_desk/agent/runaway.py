"""Noticing a degenerate model stream early, instead of waiting for the token cap.

A small model at temperature 0 can fall into a loop ("Buy bread\\nBuy bread\\n…") until the
cap, which on a CPU is a silent minute or more and ends in cut-off JSON. The guard watches the
stream as it comes: the same span repeated ``repeat_limit`` times in a row, or a call's
arguments growing past what its schema can hold (capped), stops the turn with a typed result.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

REPEAT_LIMIT = 8
#: Shorter spans repeat legitimately ("--------", "....", table borders).
MIN_UNIT_CHARS = 4
MAX_UNIT_CHARS = 200
#: Arguments of any one call; a long file is written by a stronger model or in several edits.
CALL_CHARS_CAP = 12_000
#: Room for the JSON around the values when a limit is derived from a schema.
_JSON_SLACK = 200


class RunawayKind(enum.StrEnum):
    REPEATED = "repeated"
    CALL_TOO_LONG = "call_too_long"
    #: The server stopped the answer at its token cap (``StreamEnd("length")``): text or a call cut off.
    CUT_OFF = "cut_off"


@dataclass(frozen=True)
class Runaway:
    """Why a stream was stopped: what repeated (or which call grew too long) and after how many
    stream pieces (llama.cpp streams one token per piece)."""

    kind: RunawayKind
    tokens: int
    tool: str = ""
    unit: str = ""
    repeats: int = 0

    def describe(self) -> str:
        """English, for the model's history and the CLI; the UI translates from the fields."""
        if self.kind is RunawayKind.CALL_TOO_LONG:
            return f"the call to {self.tool} grew too long; stopped after {self.tokens} tokens"
        if self.kind is RunawayKind.CUT_OFF:
            what = f"the call to {self.tool}" if self.tool else "the answer"
            return f"{what} reached the length limit and was cut off after {self.tokens} tokens"
        return f"the model repeated itself; stopped after {self.tokens} tokens"


def call_chars_limit(parameters: Mapping[str, Any] | None, cap: int = CALL_CHARS_CAP) -> int:
    """How long a call's argument text may get: the sum of its string fields' ``maxLength``
    (plus the JSON around them), never more than ``cap``. A field without a bound means ``cap``."""
    properties = (parameters or {}).get("properties") or {}
    total = _JSON_SLACK
    for spec in properties.values():
        if not isinstance(spec, dict) or spec.get("type") in ("integer", "number", "boolean"):
            total += 32
        elif spec.get("type") == "string" and isinstance(spec.get("maxLength"), int):
            total += spec["maxLength"] + 16
        else:
            return cap
    return min(total, cap)


def repeated_tail(text: str, limit: int = REPEAT_LIMIT) -> tuple[str, int] | None:
    """The span that ``text`` ends with ``limit`` or more times in a row, if any."""
    for size in range(MIN_UNIT_CHARS, min(MAX_UNIT_CHARS, len(text) // limit) + 1):
        unit = text[-size:]
        # A unit made of a shorter one ("----" is "-" four times) is that shorter one.
        period = (unit + unit).find(unit, 1)
        if period < MIN_UNIT_CHARS or not unit.strip():
            continue
        if text.endswith(unit * limit):
            count = limit
            while text.endswith(unit * (count + 1)):
                count += 1
            return unit, count
    return None


class RunawayGuard:
    """Fed every piece of one turn's stream; ``feed_*`` returns a ``Runaway`` once it is one."""

    def __init__(self, call_limits: Mapping[str, int] | None = None, *, repeat_limit: int = REPEAT_LIMIT) -> None:
        self.call_limits = dict(call_limits or {})
        self.repeat_limit = repeat_limit
        self.tokens = 0
        self._text = ""
        self._calls: dict[str, tuple[str, str]] = {}  # id -> (tool, arguments so far)
        self._window = MAX_UNIT_CHARS * (repeat_limit + 1)

    def _repeated(self, text: str, tool: str = "") -> Runaway | None:
        found = repeated_tail(text[-self._window:], self.repeat_limit)
        if found is None:
            return None
        unit, count = found
        return Runaway(RunawayKind.REPEATED, self.tokens, tool=tool, unit=unit, repeats=count)

    def feed_text(self, text: str) -> Runaway | None:
        self.tokens += 1
        self._text = (self._text + text)[-self._window:]
        return self._repeated(self._text)

    def call_started(self, call_id: str, tool: str) -> None:
        self._calls[call_id] = (tool, "")

    def feed_call(self, call_id: str, text: str) -> Runaway | None:
        self.tokens += 1
        tool, so_far = self._calls.get(call_id, ("", ""))
        so_far += text
        self._calls[call_id] = (tool, so_far)
        if len(so_far) > self.call_limits.get(tool, CALL_CHARS_CAP):
            return Runaway(RunawayKind.CALL_TOO_LONG, self.tokens, tool=tool)
        return self._repeated(so_far, tool)

    def cut_off(self) -> Runaway:
        """The server ended the stream at its token cap: the last call being written, if any."""
        tool = next(reversed(self._calls.values()))[0] if self._calls else ""
        return Runaway(RunawayKind.CUT_OFF, self.tokens, tool=tool)
