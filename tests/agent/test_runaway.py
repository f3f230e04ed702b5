"""The runaway guard: degenerate streams are cut early with a typed result, nothing half-run."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator, Sequence

import pytest

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.loop import AgentLoop, StopReason
from echo_desk.agent.model import (
    ChatMessage,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallStarted,
)
from echo_desk.agent.runaway import CALL_CHARS_CAP, RunawayGuard, RunawayKind, call_chars_limit, repeated_tail
from tests.agent.fakes import Echo, WriteNote, make_engine


class EndlessModel:
    """Streams pieces from ``pieces`` until closed; records how many went out and the close."""

    def __init__(self, pieces: Iterator[StreamEvent]) -> None:
        self.pieces = pieces
        self.sent = 0
        self.closed = False

    @property
    def display_name(self) -> str:
        return "endless"

    async def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        try:
            for event in itertools.islice(self.pieces, 100_000):
                self.sent += 1
                yield event
            yield StreamEnd("length")
        finally:
            self.closed = True

    async def aclose(self) -> None:
        return None


@pytest.fixture
def engine(tmp_path, engines):  # type: ignore[no-untyped-def]
    made = make_engine(tmp_path, Echo(), WriteNote())
    engines.append(made[0])
    return made


def test_a_span_repeated_eight_times_is_found_seven_is_not() -> None:
    assert repeated_tail("Sure. " + "Buy bread\n" * 8) == ("Buy bread\n", 8)
    assert repeated_tail("Sure. " + "Buy bread\n" * 7) is None


@pytest.mark.parametrize("text", [
    "-" * 200,                                   # a rule line: too short a unit to mean anything
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18",
    " " * 100,                                   # indentation
])
def test_ordinary_text_is_not_a_runaway(text: str) -> None:
    guard = RunawayGuard()
    assert all(guard.feed_text(ch) is None for ch in text)


def test_call_limit_comes_from_the_schema_and_is_capped() -> None:
    small = {"type": "object", "properties": {"path": {"type": "string", "maxLength": 300},
                                               "start_line": {"type": "integer"}}}
    assert 300 < call_chars_limit(small) < 1000
    unbounded = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}
    assert call_chars_limit(unbounded) == CALL_CHARS_CAP


async def test_repeating_answer_is_stopped_early_and_the_stream_closed(engine, scope, host) -> None:  # type: ignore[no-untyped-def]
    model = EndlessModel(TextDelta(w) for w in itertools.cycle(["Buy", " bread", "\n"]))
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert outcome.stop_reason is StopReason.RUNAWAY
    assert outcome.runaway is not None and outcome.runaway.kind is RunawayKind.REPEATED
    assert outcome.runaway.unit.strip() in ("Buy bread", "bread\nBuy")  # whichever phase it caught
    assert model.sent < 40 and model.closed  # 8 repeats of 3 pieces, not the token cap
    assert outcome.runaway.tokens == model.sent
    assert "repeated itself" in outcome.error


def _growing_call() -> Iterator[StreamEvent]:
    yield ToolCallStarted(id="c1", name="echo")
    yield ToolCallDelta(id="c1", text='{"text": "')
    for n in itertools.count():
        yield ToolCallDelta(id="c1", text=f"{n:07d} ")  # never repeats, only grows


async def test_a_call_growing_past_its_limit_is_stopped_and_not_run(engine, scope, host) -> None:  # type: ignore[no-untyped-def]
    model = EndlessModel(_growing_call())
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert outcome.stop_reason is StopReason.RUNAWAY
    assert outcome.runaway is not None and outcome.runaway.kind is RunawayKind.CALL_TOO_LONG
    assert outcome.runaway.tool == "echo"
    assert model.closed and model.sent < 200  # Echo's text is at most a few hundred characters
    assert outcome.envelopes == {}  # the cut-off call was never dispatched
    assert engine[0].audit.query(tool="echo") == []


async def test_repeating_call_arguments_are_stopped(engine, scope, host) -> None:  # type: ignore[no-untyped-def]
    def pieces() -> Iterator[StreamEvent]:
        yield ToolCallStarted(id="c1", name="write_note")
        yield ToolCallDelta(id="c1", text='{"text": "')
        yield from (ToolCallDelta(id="c1", text=t) for t in itertools.cycle(["Buy", " eggs", "\\n"]))

    model = EndlessModel(pieces())
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert outcome.runaway is not None and outcome.runaway.kind is RunawayKind.REPEATED
    assert outcome.runaway.tool == "write_note"
    assert model.sent < 40 and outcome.envelopes == {}


async def test_an_answer_cut_at_the_token_cap_is_a_typed_stop_and_its_call_is_not_run(engine, scope, host) -> None:  # type: ignore[no-untyped-def]
    pieces = iter([ToolCallStarted(id="c1", name="write_note"), ToolCallDelta(id="c1", text='{"text": "half')])
    model = EndlessModel(pieces)  # ends with StreamEnd("length")
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert outcome.stop_reason is StopReason.RUNAWAY
    assert outcome.runaway is not None and outcome.runaway.kind is RunawayKind.CUT_OFF
    assert outcome.runaway.tool == "write_note" and outcome.envelopes == {}
    assert "cut off" in outcome.error


def test_a_retry_note_names_what_went_wrong() -> None:
    from echo_desk.agent.retry import retry_note
    from echo_desk.agent.runaway import Runaway

    note = retry_note(Runaway(RunawayKind.REPEATED, 40, unit="Buy bread\n", repeats=9))
    assert note.role == "user" and "'Buy bread' 9 times" in note.content
    assert "edit_file" in retry_note(Runaway(RunawayKind.CALL_TOO_LONG, 900, tool="write_file")).content
    assert "length limit" in retry_note(Runaway(RunawayKind.CUT_OFF, 1024)).content


async def test_a_listener_without_on_runaway_hears_the_cut_as_an_error(engine, scope, host) -> None:  # type: ignore[no-untyped-def]
    from echo_desk.agent.loop import NullListener

    class Printer(NullListener):  # as the CLI's printer: errors only
        def __init__(self) -> None:
            self.errors: list[str] = []

        def on_error(self, message: str) -> None:
            self.errors.append(message)

    printer = Printer()
    model = EndlessModel(TextDelta(w) for w in itertools.cycle(["Buy", " bread", "\n"]))
    await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host, printer)
    assert len(printer.errors) == 1 and "repeated itself" in printer.errors[0]
