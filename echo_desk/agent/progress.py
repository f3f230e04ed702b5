"""What the model is doing right now, as typed progress for the window ("never a silent minute").

The loop feeds every stream event to a ``ProgressMeter``; it answers with a ``Progress`` when
the stage changes, and at most every ``interval`` seconds while tokens arrive, so a listener can
show "thinking… 12 s" or "writing a call to edit_file… 312 tokens, 9 tokens/s" without being
flooded. The UI translates from the fields; nothing here is display text.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass

from echo_desk.agent.model import (
    IntentProgress,
    ModelStarting,
    PromptProgress,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)


class Stage(enum.StrEnum):
    #: The model's own server is loading the model (the built-in model's first use).
    STARTING_MODEL = "starting_model"
    #: Request sent, no token yet, and the server says nothing about it (a remote model).
    THINKING = "thinking"
    #: The server is reading the prompt (``prompt_tokens``, ``cached_tokens`` of them reused).
    READING_PROMPT = "reading_prompt"
    #: The model is stating what the request asks for (``IntentProgress``), before it acts.
    WORKING_OUT_REQUEST = "working_out_request"
    WRITING_TEXT = "writing_text"
    WRITING_CALL = "writing_call"


@dataclass(frozen=True)
class Progress:
    stage: Stage
    elapsed: float
    tokens: int = 0
    tokens_per_second: float = 0.0
    tool: str = ""
    #: The prompt's size and how much of it the server reused, when it says (``READING_PROMPT``).
    prompt_tokens: int = 0
    cached_tokens: int = 0


class ProgressMeter:
    """One model request's progress. ``clock`` is injectable for tests."""

    def __init__(self, *, interval: float = 0.25, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.began = clock()
        self.first_token_at: float | None = None
        self.tokens = 0
        self.stage = Stage.THINKING
        self.tool = ""
        self.prompt_tokens = 0
        self.cached_tokens = 0
        self._last_emit = -1e9

    def start(self) -> Progress:
        self._last_emit = self.clock()
        return self._progress(self._last_emit)

    def tick(self) -> Progress | None:
        """For a timer while nothing arrives: the elapsed time still moves."""
        now = self.clock()
        if now - self._last_emit < self.interval:
            return None
        self._last_emit = now
        return self._progress(now)

    def on_event(self, event: StreamEvent) -> Progress | None:
        stage = self.stage
        if isinstance(event, ModelStarting):
            stage = Stage.STARTING_MODEL
        elif isinstance(event, PromptProgress):
            if self.stage in (Stage.WRITING_TEXT, Stage.WRITING_CALL):
                return None
            stage, self.prompt_tokens, self.cached_tokens = Stage.READING_PROMPT, event.total, event.cached
        elif isinstance(event, IntentProgress):
            stage = Stage.WORKING_OUT_REQUEST
        elif isinstance(event, TextDelta):
            stage = Stage.WRITING_TEXT
            self._count()
        elif isinstance(event, ToolCallStarted):
            stage, self.tool = Stage.WRITING_CALL, event.name
            self._count()
        elif isinstance(event, ToolCallDelta):
            self._count()
        elif not isinstance(event, ToolCallReady):
            return None
        now = self.clock()
        if stage is self.stage and now - self._last_emit < self.interval:
            return None
        self.stage = stage
        self._last_emit = now
        return self._progress(now)

    def _count(self) -> None:
        self.tokens += 1
        if self.first_token_at is None:
            self.first_token_at = self.clock()

    def _progress(self, now: float) -> Progress:
        rate = 0.0
        if self.first_token_at is not None and now > self.first_token_at:
            rate = self.tokens / (now - self.first_token_at)
        return Progress(self.stage, elapsed=now - self.began, tokens=self.tokens,
                        tokens_per_second=rate, tool=self.tool if self.stage is Stage.WRITING_CALL else "",
                        prompt_tokens=self.prompt_tokens, cached_tokens=self.cached_tokens)
