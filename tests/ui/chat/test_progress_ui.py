"""The window always says what the model is doing, and Stop works at every stage."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence

import pytest

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    IntentProgress,
    ModelStarting,
    PromptProgress,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallStarted,
)
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import next_emission, until, within


class StagedModel:
    """Silent until ``speak`` is set (prompt processing), then writes a call that never ends."""

    def __init__(self) -> None:
        self.speak = asyncio.Event()
        self.pieces = 0

    @property
    def display_name(self) -> str:
        return "staged"

    async def stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        await self.speak.wait()
        yield ToolCallStarted(id="c1", name="write_note")
        while True:
            await asyncio.sleep(0.01)
            self.pieces += 1
            yield ToolCallDelta(id="c1", text="x")

    async def aclose(self) -> None:
        return None


async def _stop_and_time(window: MainWindow) -> float:
    idle = next_emission(window.session.busy_changed)
    began = time.monotonic()
    window.stop_button.click()
    assert await within(idle) is False
    return time.monotonic() - began


@pytest.mark.parametrize("stage", ["thinking", "writing_call"])
def test_progress_is_shown_and_stop_ends_it_within_a_second(window, qloop, stage) -> None:  # type: ignore[no-untyped-def]
    model = StagedModel()
    window.set_model(model)
    label = window.progress_label

    async def scenario() -> float:
        window.composer.setPlainText("fix the typo")
        window.send()
        await until(lambda: label.text().startswith("Thinking…"))
        if stage == "writing_call":
            model.speak.set()
            # The tool by its title, as the cards name it, not by its registry name.
            await until(lambda: "Writing a call to Write note…" in label.text() and "tokens/s" in label.text())
        return await _stop_and_time(window)

    assert qloop.run_until_complete(scenario()) <= 1.0
    assert label.text() == ""  # idle: nothing claims to be running
    assert window.send_button.isEnabled()


def test_progress_text_is_translated(window, qloop) -> None:  # type: ignore[no-untyped-def]
    model = StagedModel()
    window.set_model(model)
    i18n_qt.apply_language("zh_CN")
    try:
        async def scenario() -> None:
            window.composer.setPlainText("修改")
            window.send()
            model.speak.set()
            await until(lambda: "正在" in window.progress_label.text())
            await _stop_and_time(window)

        qloop.run_until_complete(scenario())
    finally:
        i18n_qt.apply_language("en")


def test_an_answer_claiming_a_change_no_call_made_is_marked(window, qloop) -> None:  # type: ignore[no-untyped-def]
    from tests.ui.fake_model import ScriptedModel, say

    window.set_model(ScriptedModel([say("I added the line 'Buy butter' to notes.txt.")]))

    async def scenario() -> None:
        idle = next_emission(window.session.busy_changed)
        window.composer.setPlainText("Add a line 'Buy butter' at the end of notes.txt")
        window.send()
        await within(idle)
        await until(lambda: window.session.transcript.items()[-1].kind == "notice")

    qloop.run_until_complete(scenario())
    last = window.session.transcript.items()[-1]
    assert last.text == "No file was changed in this turn."


def test_an_ordinary_answer_is_not_marked(window, qloop) -> None:  # type: ignore[no-untyped-def]
    from tests.ui.fake_model import ScriptedModel, say

    window.set_model(ScriptedModel([say("The meeting is in room B12.")]))

    async def scenario() -> None:
        idle = next_emission(window.session.busy_changed)
        window.composer.setPlainText("Where is the meeting?")
        window.send()
        await within(idle)

    qloop.run_until_complete(scenario())
    assert all(i.kind != "notice" for i in window.session.transcript.items())


class SlowStartModel:
    """A built-in model on a slow machine: starting, then reading the prompt, then the answer;
    each stage waits for the test to release it."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.read = asyncio.Event()

    @property
    def display_name(self) -> str:
        return "slow start"

    async def stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        yield ModelStarting()
        await self.started.wait()
        yield PromptProgress(total=812, cached=640, processed=0)
        await self.read.wait()
        yield PromptProgress(total=812, cached=640, processed=812)
        yield TextDelta("Hello")
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


def test_starting_the_model_and_reading_the_prompt_are_shown_with_elapsed_time(window, qloop) -> None:  # type: ignore[no-untyped-def]
    model = SlowStartModel()
    window.set_model(model)
    label = window.progress_label
    seen: list[str] = []

    async def scenario() -> None:
        window.composer.setPlainText("hello")
        window.send()
        await until(lambda: label.text().startswith("Starting the local model… 0 s"))
        # Never a silent minute: the elapsed time moves while the model loads.
        await until(lambda: label.text().startswith("Starting the local model… 1 s"), seconds=5)
        seen.append(label.text())
        model.started.set()
        await until(lambda: label.text().startswith("Reading the conversation… 812 tokens, 640 already read"))
        seen.append(label.text())
        model.read.set()
        await until(lambda: not window.session.busy)

    qloop.run_until_complete(scenario())
    assert "only the first message" in seen[0]
    assert seen[1].endswith(" s")
    assert label.text() == ""


def test_stop_while_the_model_is_starting_ends_within_a_second(window, qloop) -> None:  # type: ignore[no-untyped-def]
    window.set_model(SlowStartModel())

    async def scenario() -> float:
        window.composer.setPlainText("hello")
        window.send()
        await until(lambda: window.progress_label.text().startswith("Starting the local model…"))
        return await _stop_and_time(window)

    assert qloop.run_until_complete(scenario()) <= 1.0
    assert window.progress_label.text() == "" and window.send_button.isEnabled()


class IntentStepModel:
    """The built-in model's first step: it states the request's intent, then waits."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()

    @property
    def display_name(self) -> str:
        return "intent step"

    async def stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *,
                     tool_choice: str = "auto") -> AsyncIterator[StreamEvent]:
        yield IntentProgress(tokens=1)
        await self.answer.wait()
        yield IntentProgress(tokens=9, intent="question")
        yield TextDelta("Hello")
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize(("language", "words"), [("en", "Working out what you are asking for… {} s"),
                                                  ("zh_CN", "正在弄清你要做什么… {} 秒")])
def test_the_model_stating_its_intent_is_shown_as_its_own_step(window, qloop, language, words) -> None:  # type: ignore[no-untyped-def]
    model = IntentStepModel()
    window.set_model(model)
    label = window.progress_label
    i18n_qt.apply_language(language)
    try:
        async def scenario() -> None:
            window.composer.setPlainText("hello")
            window.send()
            await until(lambda: label.text() == words.format(0))
            # Never silent: the elapsed time moves while the step runs.
            await until(lambda: label.text() == words.format(1), seconds=5)
            model.answer.set()
            await until(lambda: not window.session.busy)

        qloop.run_until_complete(scenario())
    finally:
        i18n_qt.apply_language("en")


@pytest.mark.parametrize(("language", "note"), [
    ("en", "Check this answer: it says 16, but the text that was read has 18 lines (17 after the first)."),
    ("zh_CN", "请核对这个回答：它说是 16，但读取的文本有 18 行（去掉第一行是 17 行）。"),
])
def test_an_answer_contradicting_what_a_tool_counted_gets_a_note(window, qloop, workspace, language,  # type: ignore[no-untyped-def]
                                                                  note) -> None:
    from tests.ui.fake_model import ScriptedModel, call, say

    (workspace / "data.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(1, 18)), encoding="utf-8")
    window.set_model(ScriptedModel([call("c1", "read_note", '{"path": "data.csv"}'), say("data.csv has 16 rows.")]))
    i18n_qt.apply_language(language)
    try:
        async def scenario() -> None:
            idle = next_emission(window.session.busy_changed)
            window.composer.setPlainText("How many rows are in data.csv?")
            window.send()
            await within(idle)
            await until(lambda: window.session.transcript.items()[-1].kind == "notice")

        qloop.run_until_complete(scenario())
        assert window.session.transcript.items()[-1].text == note
    finally:
        i18n_qt.apply_language("en")
