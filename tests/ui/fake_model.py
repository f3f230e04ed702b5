"""A scripted ChatModel for the UI tests (the real providers are tested elsewhere)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, StreamEnd, StreamEvent, TextDelta, ToolCall, ToolCallReady


def say(text: str) -> list[StreamEvent]:
    return [TextDelta(word + " ") for word in text.split(" ")] + [StreamEnd()]


def call(call_id: str, name: str, arguments: str) -> list[StreamEvent]:
    return [ToolCallReady(ToolCall(id=call_id, name=name, arguments=arguments)), StreamEnd("tool_calls")]


class ScriptedModel:
    def __init__(self, turns: list[list[StreamEvent]], *, delay: float = 0.0, endless: bool = False) -> None:
        self.turns = list(turns)
        self.delay = delay
        self.endless = endless
        self.seen_tools: list[list[str]] = []
        #: The messages of each request, as the model received them.
        self.seen_messages: list[list[ChatMessage]] = []

    @property
    def display_name(self) -> str:
        return "scripted"

    async def stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        self.seen_tools.append([t.name for t in tools])
        self.seen_messages.append(list(messages))
        if self.endless:
            while True:  # a model that never stops talking: only Stop ends it
                await asyncio.sleep(self.delay)
                yield TextDelta("more ")
        for event in self.turns.pop(0) if self.turns else say("(done)"):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield event

    async def aclose(self) -> None:
        return None
