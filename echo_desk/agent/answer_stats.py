"""How an answer was produced: tokens in and out (when the provider reports them) and time.

:class:`MeteredModel` wraps any :class:`ChatModel` and measures each stream it opens; the session
stores the figures with the assistant message, so the footer under an answer survives a restart.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ChatModel, StreamEvent, TextDelta, ToolCallStarted, Usage


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


class MeteredModel:
    """A :class:`ChatModel` that measures every stream of the model it wraps.

    :meth:`take` hands over the figures of the last finished (or cancelled) stream once.
    """

    def __init__(self, model: ChatModel, clock: Callable[[], float] = time.perf_counter) -> None:
        self.model = model
        self._clock = clock
        self._last: AnswerStats | None = None

    @property
    def display_name(self) -> str:
        return self.model.display_name

    async def stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        start = self._clock()
        first: float | None = None
        usage: Usage | None = None
        try:
            async for event in self.model.stream(messages, tools, tool_choice=tool_choice):
                if first is None and isinstance(event, TextDelta | ToolCallStarted):
                    first = self._clock() - start
                if isinstance(event, Usage):
                    usage = event
                yield event
        finally:
            # Providers report 0 for what they do not count; a 0 is shown as unknown, not as zero.
            self._last = AnswerStats(
                input_tokens=(usage.input_tokens or None) if usage else None,
                output_tokens=(usage.output_tokens or None) if usage else None,
                elapsed_seconds=self._clock() - start, first_token_seconds=first)

    def take(self) -> AnswerStats | None:
        stats, self._last = self._last, None
        return stats

    async def aclose(self) -> None:
        await self.model.aclose()
