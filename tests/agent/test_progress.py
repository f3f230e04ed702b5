"""Typed progress of a model request: stages, tokens, rate, elapsed; and the loop reporting it."""

from __future__ import annotations

import pytest

from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import (
    ChatMessage,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.agent.progress import Progress, ProgressMeter, Stage
from tests.agent.fake_model import ScriptedModel, say
from tests.agent.fakes import Echo, make_engine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_stages_tokens_rate_and_elapsed() -> None:
    clock = Clock()
    meter = ProgressMeter(interval=0.25, clock=clock)
    assert meter.start() == Progress(Stage.THINKING, elapsed=0.0)
    clock.now += 0.1
    assert meter.tick() is None  # throttled
    clock.now += 3.9
    assert meter.tick() == Progress(Stage.THINKING, elapsed=4.0)  # silent, but time moves
    started = meter.on_event(ToolCallStarted(id="c1", name="edit_file"))
    assert started is not None and started.stage is Stage.WRITING_CALL and started.tool == "edit_file"
    for _ in range(9):
        clock.now += 0.1
        meter.on_event(ToolCallDelta(id="c1", text="x"))
    clock.now += 0.3
    latest = meter.tick()
    assert latest is not None and latest.tokens == 10 and latest.stage is Stage.WRITING_CALL
    assert latest.tokens_per_second == pytest.approx(10 / 1.2)  # since the first token, at 4.0 s
    assert latest.elapsed == pytest.approx(5.2)


def test_text_after_thinking_is_reported_at_once() -> None:
    clock = Clock()
    meter = ProgressMeter(interval=10.0, clock=clock)
    meter.start()
    first = meter.on_event(TextDelta("Hi"))
    assert first is not None and first.stage is Stage.WRITING_TEXT and first.tool == ""
    assert meter.on_event(TextDelta(" there")) is None  # same stage within the interval


class Hears(NullListener):
    def __init__(self) -> None:
        self.progress: list[Progress] = []

    def on_progress(self, progress: Progress) -> None:
        self.progress.append(progress)


async def test_the_loop_reports_progress_to_a_listener_that_wants_it(tmp_path, engines, scope, host) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(tmp_path, Echo())
    engines.append(engine[0])
    call = ToolCall(id="c1", name="echo", arguments='{"text": "ping"}')
    turn = [ToolCallStarted(id="c1", name="echo"), ToolCallDelta(id="c1", text='{"text": "ping"}'),
            ToolCallReady(call), StreamEnd("tool_calls")]
    hears = Hears()
    outcome = await AgentLoop(ScriptedModel([turn, say("pong")]), engine[0], engine[1]).run(
        [ChatMessage(role="user", content="x")], scope, host, hears)
    assert outcome.completed
    stages = [p.stage for p in hears.progress]
    assert stages[0] is Stage.THINKING
    assert Stage.WRITING_CALL in stages and Stage.WRITING_TEXT in stages
    assert any(p.tool == "echo" for p in hears.progress)


def test_starting_the_model_then_reading_the_prompt_are_stages() -> None:
    from echo_desk.agent.model import ModelStarting, PromptProgress

    clock = Clock()
    meter = ProgressMeter(interval=0.25, clock=clock)
    meter.start()
    starting = meter.on_event(ModelStarting())
    assert starting is not None and starting.stage is Stage.STARTING_MODEL
    clock.now += 6.0
    reading = meter.on_event(PromptProgress(total=900, cached=700))
    assert reading is not None and reading.stage is Stage.READING_PROMPT
    assert (reading.prompt_tokens, reading.cached_tokens, reading.elapsed) == (900, 700, 6.0)
    clock.now += 1.0
    writing = meter.on_event(TextDelta("Hi"))
    assert writing is not None and writing.stage is Stage.WRITING_TEXT and writing.tokens == 1
    clock.now += 1.0
    assert meter.on_event(PromptProgress(total=900, processed=900)) is None  # late: already writing
