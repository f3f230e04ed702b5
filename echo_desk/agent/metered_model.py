"""Measuring how an answer was produced: :class:`MeteredModel` wraps any :class:`ChatModel` and
measures each stream it opens (tokens in and out when the provider reports them, and time). The
session stores the figures (``store.answer_stats.AnswerStats``) with the assistant message, so the
footer under an answer survives a restart.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ChatModel, StreamEvent, TextDelta, ToolCallStarted, Usage
from echo_desk.store.answer_stats import AnswerStats


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
