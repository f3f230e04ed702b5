"""A scripted ChatModel: exact streams and faults, for the loop's tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ModelError,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallReady,
)

Turn = list[StreamEvent] | ModelError | Callable[[Sequence[ChatMessage]], list[StreamEvent]]


def say(text: str) -> list[StreamEvent]:
    words = text.split(" ")
    parts = [w + " " for w in words[:-1]] + [words[-1]]
    return [TextDelta(part) for part in parts] + [StreamEnd()]


def calls(*items: tuple[str, str, str]) -> list[StreamEvent]:
    return [ToolCallReady(ToolCall(id=i, name=n, arguments=a)) for i, n, a in items] + [StreamEnd("tool_calls")]


class ScriptedModel:
    def __init__(self, turns: list[Turn], *, delay: float = 0.0) -> None:
        self.turns = list(turns)
        self.delay = delay
        self.seen: list[tuple[list[ChatMessage], list[ToolDefinition], str]] = []

    @property
    def display_name(self) -> str:
        return "scripted"

    async def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        self.seen.append((list(messages), list(tools), tool_choice))
        turn = self.turns.pop(0) if self.turns else say("(script exhausted)")
        if isinstance(turn, ModelError):
            raise turn
        events = turn(messages) if callable(turn) else turn
        for event in events:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield event

    async def aclose(self) -> None:
        return None
