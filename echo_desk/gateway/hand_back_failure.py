"""Why the quitting app could not hand a session back to its gateway (``handed.hand_back``), as a
value: the activity log keeps it (``audit.session_not_handed_back``) and the Activity tab words it
in the person's language; the app's log and the audit's ``error`` column read the English here."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class HandBackFailure(enum.StrEnum):
    NOT_BEGUN = "not_begun"  # the client had not opened its session yet
    INPUT_CUT = "input_cut"  # in the middle of a line the client was sending that could not go on whole
    GATEWAY_NOT_READY = "gateway_not_ready"
    GATEWAY_DID_NOT_TAKE = "gateway_did_not_take"
    TOO_SLOW = "too_slow"
    CONNECTION_FAILED = "connection_failed"


_ENGLISH = {
    HandBackFailure.NOT_BEGUN: "the session had not begun",
    HandBackFailure.INPUT_CUT: "the client's input could not be handed on whole",
    HandBackFailure.GATEWAY_NOT_READY: "the gateway did not say it was ready",
    HandBackFailure.GATEWAY_DID_NOT_TAKE: "the gateway did not say it took the pipes",
    HandBackFailure.TOO_SLOW: "it took more than {seconds:g} s",
    HandBackFailure.CONNECTION_FAILED: "the gateway's connection failed: {detail}",
}


@dataclass(frozen=True)
class NotHandedBack:
    """A hand-back that failed: why, and what the system said (an OS error's text, a time bound)."""

    failure: HandBackFailure
    detail: str = ""
    seconds: float = 0.0

    def __str__(self) -> str:
        return _ENGLISH[self.failure].format(detail=self.detail, seconds=self.seconds)
