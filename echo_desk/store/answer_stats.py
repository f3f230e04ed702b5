"""How an answer was produced: tokens in and out (when the provider reports them) and time,
stored with the assistant message so the footer under an answer survives a restart.

The engine measures them (``agent.metered_model.MeteredModel``); the conversation store keeps
them as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class AnswerStats:
    """One model reply. Token counts are ``None`` when the provider did not report them."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    #: From sending the request to the end of the stream.
    elapsed_seconds: float = 0.0
    #: From sending the request to the first text or call (``None`` when nothing came).
    first_token_seconds: float | None = None

    @property
    def tokens_per_second(self) -> float | None:
        """Output tokens over the generating time (after the first token), when both are known."""
        if not self.output_tokens:
            return None
        generating = self.elapsed_seconds - (self.first_token_seconds or 0.0)
        if generating <= 0.0:
            generating = self.elapsed_seconds
        return self.output_tokens / generating if generating > 0.0 else None

    def to_json(self) -> dict[str, Any]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "elapsed_seconds": self.elapsed_seconds, "first_token_seconds": self.first_token_seconds}

    @classmethod
    def from_json(cls, value: Any) -> AnswerStats | None:
        """The stored figures, or ``None`` for anything that is not (a damaged row shows no footer)."""
        if not isinstance(value, dict):
            return None

        def count(key: str) -> int | None:
            number = value.get(key)
            return number if isinstance(number, int) and not isinstance(number, bool) and number >= 0 else None

        def seconds(key: str) -> float | None:
            number = value.get(key)
            if isinstance(number, bool) or not isinstance(number, int | float) or number < 0:
                return None
            return float(number)

        return cls(input_tokens=count("input_tokens"), output_tokens=count("output_tokens"),
                   elapsed_seconds=seconds("elapsed_seconds") or 0.0,
                   first_token_seconds=seconds("first_token_seconds"))
