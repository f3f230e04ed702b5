"""The agent loop: send messages and tool definitions, stream the answer, run the calls the
model asks for through ``execute_tool``, feed the envelopes back, until it answers in text.

Read-only calls of one turn run concurrently; calls with side effects run one by one, in the
order the model gave them. Every message is handed to the listener as soon as it is complete,
so a crash loses at most the message being streamed.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Protocol

from echo_desk.agent.claims import claims_change
from echo_desk.agent.count_check import CountMismatch, count_mismatch
from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.dispatcher import Dispatcher
from echo_desk.agent.envelope import Envelope, StoppedCall
from echo_desk.agent.host import Host
from echo_desk.agent.late_checks_told import late_check_note, owe_when_checked, owed_to
from echo_desk.agent.model import (
    ChatMessage,
    ChatModel,
    ModelError,
    ModelErrorKind,
    StreamEnd,
    StreamWarning,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.agent.policy import effective_risk
from echo_desk.agent.progress import Progress, ProgressMeter
from echo_desk.agent.read_first import asks_nobody, read_call, refusal, unread_target
from echo_desk.agent.runaway import Runaway, RunawayGuard, call_chars_limit
from echo_desk.agent.schema import SchemaFactory
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.undo.journal import turn as person_turn
from echo_desk.agent.undo.notes import revert_note
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, for_person
from echo_desk.tools.planted import CheckedLater
from echo_desk.tools.results import ErrorKind, RiskLevel

log = logging.getLogger(__name__)

DEFAULT_MAX_TURNS = 25
#: The same call (name and arguments) failing this many times ends the exchange.
REPEATED_FAILURE_LIMIT = 3


class LoopListener(Protocol):
    """What the UI, the CLI and the conversation store hear while the loop runs.

    Optional methods are looked up by name: ``on_progress(Progress)`` (what the model is
    doing now); ``on_runaway(Runaway)``, heard *instead of* ``on_error`` when the stream was
    cut, so a listener can offer Retry (not on ``NullListener``: a subclass that only prints
    errors must still hear a cut stream as one); ``on_checked_later(call_id, Envelope)``, the
    call's envelope again once its sandbox, which still ran as its result went, was checked
    (from whichever thread ended that check).
    """

    def on_text(self, delta: str) -> None: ...

    def on_tool_call(self, call: ToolCall) -> None: ...

    def on_tool_status(self, call_id: str, status: ToolStatus) -> None: ...

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None: ...

    def on_message(self, message: ChatMessage) -> None: ...

    def on_error(self, message: str) -> None: ...


class NullListener:
    def on_text(self, delta: str) -> None: ...

    def on_progress(self, progress: Progress) -> None:
        """Optional for any listener (looked up by name): what the model is doing right now."""
    def on_tool_call(self, call: ToolCall) -> None: ...

    def on_tool_status(self, call_id: str, status: ToolStatus) -> None: ...

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None: ...

    def on_message(self, message: ChatMessage) -> None: ...

    def on_error(self, message: str) -> None: ...


def tell_when_checked(hear: LoopListener, call_id: str, envelope: Envelope) -> None:
    """Once the later check of the call's sandbox (``Envelope.later_check``) found what it left,
    hand ``hear`` the envelope that says so (``on_checked_later``, when it has one)."""
    told = getattr(hear, "on_checked_later", None)
    if envelope.later_check is None or told is None:
        return

    def found(later: Future[CheckedLater]) -> None:
        if not later.cancelled() and later.exception() is None:
            told(call_id, envelope.checked(later.result()))

    envelope.later_check.add_done_callback(found)


class StopReason(enum.StrEnum):
    DONE = "done"
    MAX_TURNS = "max_turns"
    REPEATED_FAILURE = "repeated_failure"
    MODEL_ERROR = "model_error"
    #: The model's stream degenerated (a span repeated, a call grew past its limit) and was cut.
    RUNAWAY = "runaway"


@dataclass
class Outcome:
    stop_reason: StopReason
    messages: list[ChatMessage] = field(default_factory=list)
    envelopes: dict[str, Envelope] = field(default_factory=dict)
    error: str = ""
    #: Set with ``StopReason.RUNAWAY``: what degenerated, for a card that offers Retry.
    runaway: Runaway | None = None
    #: A call with a side effect succeeded in this exchange (a file written, a command run).
    made_changes: bool = False
    #: The final answer claims a change although none was made: the transcript marks it.
    unbacked_claim: bool = False
    #: The final answer gives a number beside one a tool counted (17 lines read, "16" answered):
    #: the transcript asks the person to check it.
    count_mismatch: CountMismatch | None = None

    @property
    def completed(self) -> bool:
        return self.stop_reason is StopReason.DONE

    @property
    def final_text(self) -> str:
        for message in reversed(self.messages):
            if message.role == "assistant" and message.content:
                return message.content
        return ""


class AgentLoop:
    def __init__(
        self,
        model: ChatModel,
        dispatcher: Dispatcher,
        schema_factory: SchemaFactory,
        *,
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        self.model = model
        self.dispatcher = dispatcher
        self.schema_factory = schema_factory
        self.max_turns = max_turns

    async def run(
        self,
        history: Sequence[ChatMessage],
        scope: Scope,
        host: Host,
        listener: LoopListener | None = None,
        *,
        tool_choice: str = "auto",
    ) -> Outcome:
        """One exchange of the conversation (see ``_run_exchange``): the calls it makes form one
        turn for Revert, and the model first hears of changes the person reverted since."""
        if scope.parent is not None:  # a sub-agent's calls belong to its parent's turn
            try:
                return await self._run_exchange(history, scope, host, listener, tool_choice=tool_choice)
            finally:  # what its late checks find from now on is told to its parent
                self.dispatcher.late_findings.returned(owed_to(scope), owed_to(scope.parent))
        reverted = revert_note(self.dispatcher.undo.changes.take_untold_reverts(scope.conversation_id)
                               if self.dispatcher.undo else [])
        late = late_check_note(self.dispatcher.late_findings.take(owed_to(scope)))
        for note in (reverted, late):
            if note:
                told = ChatMessage(role="user", content=note)
                history = [*history, told]
                (listener or NullListener()).on_message(told)
        with person_turn():
            return await self._run_exchange(history, scope, host, listener, tool_choice=tool_choice)

    async def _stream_with_one_retry(self, messages: list[ChatMessage], scope: Scope, choice: str,
                                     hear: LoopListener, text_parts: list[str], calls: list[ToolCall]) -> None:
        definitions = self.schema_factory.definitions(scope)
        try:
            await self._stream_turn(messages, definitions, choice, hear, text_parts, calls)
        except ModelError as exc:
            # A small model sometimes emits something that is neither text nor a valid
            # call; ask once more for a plain answer before giving up.
            if exc.kind is not ModelErrorKind.MODEL_OUTPUT or text_parts or calls or choice == "none":
                raise
            log.warning("model output unreadable (%s); retrying this turn without tools", exc)
            await self._stream_turn(messages, definitions, "none", hear, text_parts, calls)

    def _count_results(self, calls: list[ToolCall], results: Mapping[str, Envelope],
                       failures: dict[tuple[str, str], int], outcome: Outcome) -> None:
        """Failures per (tool, arguments) for the repeated-failure stop; whether anything changed."""
        for call in calls:
            envelope = results[call.id]
            key = (call.name, _canonical(call.arguments))
            # A call that failed may still have changed files (it ran out of time after a write).
            outcome.made_changes |= bool(envelope.file_changes)
            if envelope.ok:
                failures.pop(key, None)
                outcome.made_changes |= not self._is_read(call)
            else:
                failures[key] = failures.get(key, 0) + 1

    async def _run_exchange(
        self,
        history: Sequence[ChatMessage],
        scope: Scope,
        host: Host,
        listener: LoopListener | None = None,
        *,
        tool_choice: str = "auto",
    ) -> Outcome:
        """Run until the model answers without calls, a limit is hit or the model fails.

        Cancelling the task stops the stream and running tools at once; calls that never got
        a result are recorded as cancelled (so the transcript stays valid) before
        ``CancelledError`` propagates.
        """
        hear = listener or NullListener()
        outcome = Outcome(StopReason.DONE)
        messages = list(history)
        failures: dict[tuple[str, str], int] = {}

        def keep(message: ChatMessage) -> None:
            messages.append(message)
            outcome.messages.append(message)
            hear.on_message(message)

        # A conversation gets a fresh budget per exchange; a sub-agent's budget is fixed at spawn.
        max_turns = self.max_turns
        if scope.parent is not None and scope.turns_left is not None:
            max_turns = min(max_turns, scope.turns_left)
        for turn in range(max_turns):
            scope.turns_left = max_turns - turn
            text_parts: list[str] = []
            calls: list[ToolCall] = []
            choice = tool_choice if turn == 0 else "auto"
            if scope.parent is not None:  # a sub-agent has one exchange: told at its next turn
                late = late_check_note(self.dispatcher.late_findings.take(owed_to(scope)))
                if late:
                    keep(ChatMessage(role="user", content=late))
            try:
                await self._stream_with_one_retry(messages, scope, choice, hear, text_parts, calls)
            except ModelError as exc:
                if text_parts:
                    keep(ChatMessage(role="assistant", content="".join(text_parts)))
                # Its sentence, not ``str``: shown, it follows a language switch; its ``str`` is English.
                outcome.stop_reason, outcome.error = StopReason.MODEL_ERROR, exc.reason
                hear.on_error(exc.reason)
                return outcome
            except _RunawayStop as stop:
                # The cut-off call (if any) is not run: its arguments are incomplete.
                if text_parts:
                    keep(ChatMessage(role="assistant", content="".join(text_parts) + " [stopped]"))
                outcome.stop_reason, outcome.runaway = StopReason.RUNAWAY, stop.runaway
                outcome.error = stop.runaway.describe()
                # A listener that offers Retry hears the typed reason; others get the words.
                on_runaway = getattr(hear, "on_runaway", None)
                if on_runaway is not None:
                    on_runaway(stop.runaway)
                else:
                    hear.on_error(outcome.error)
                return outcome
            except asyncio.CancelledError:
                if text_parts:
                    keep(ChatMessage(role="assistant", content="".join(text_parts) + " [stopped]"))
                raise

            keep(ChatMessage(role="assistant", content="".join(text_parts), tool_calls=tuple(calls)))
            if not calls:
                outcome.unbacked_claim = not outcome.made_changes and claims_change(outcome.final_text)
                outcome.count_mismatch = count_mismatch(outcome.final_text, _request(history),
                                                        list(outcome.envelopes.values()))
                return outcome

            repeated = [c for c in calls if failures.get((c.name, _canonical(c.arguments)), 0)
                        >= REPEATED_FAILURE_LIMIT - 1]
            results = await self._run_calls(calls, scope, host, hear, keep, outcome, skip=repeated,
                                            history=messages)
            self._count_results(calls, results, failures, outcome)
            if repeated:
                names = ", ".join(sorted({c.name for c in repeated}))
                outcome.stop_reason = StopReason.REPEATED_FAILURE
                outcome.error = (f"stopped: the model repeated the same failing call to {names} "
                                 f"{REPEATED_FAILURE_LIMIT} times")
                hear.on_error(outcome.error)
                return outcome

        scope.turns_left = 0
        outcome.stop_reason = StopReason.MAX_TURNS
        outcome.error = f"stopped after {max_turns} turns without a final answer"
        hear.on_error(outcome.error)
        return outcome

    async def _stream_turn(
        self,
        messages: list[ChatMessage],
        definitions: list[ToolDefinition],
        tool_choice: str,
        hear: LoopListener,
        text_parts: list[str],
        calls: list[ToolCall],
    ) -> None:
        guard = RunawayGuard({d.name: call_chars_limit(d.parameters) for d in definitions})
        report = getattr(hear, "on_progress", None)
        meter = ProgressMeter()
        ticker = None
        if report is not None:
            report(meter.start())
            ticker = asyncio.create_task(_tick(meter, report))
        try:
            await self._consume(messages, definitions, tool_choice, hear, text_parts, calls, guard, meter, report)
        finally:
            if ticker is not None:
                ticker.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ticker

    async def _consume(
        self,
        messages: list[ChatMessage],
        definitions: list[ToolDefinition],
        tool_choice: str,
        hear: LoopListener,
        text_parts: list[str],
        calls: list[ToolCall],
        guard: RunawayGuard,
        meter: ProgressMeter,
        report: _Report | None,
    ) -> None:
        stream = self.model.stream(messages, definitions, tool_choice=tool_choice)
        async for event in stream:
            progress = meter.on_event(event)
            if progress is not None and report is not None:
                report(progress)
            runaway: Runaway | None = None
            if isinstance(event, TextDelta):
                text_parts.append(event.text)
                hear.on_text(event.text)
                runaway = guard.feed_text(event.text)
            elif isinstance(event, ToolCallDelta):
                runaway = guard.feed_call(event.id, event.text)
            elif isinstance(event, ToolCallReady):
                calls.append(event.call)
                hear.on_tool_call(event.call)
            elif isinstance(event, ToolCallStarted):
                guard.call_started(event.id, event.name)
                hear.on_tool_status(event.id, ToolStatus.PENDING)
            elif isinstance(event, StreamWarning):
                log.warning("model stream: %s", event.message)
            elif isinstance(event, StreamEnd) and event.stop_reason == "length":
                # Cut at the token cap: the text is incomplete and a call's arguments are too.
                runaway = guard.cut_off()
            if runaway is not None:
                # Closing the stream closes the connection: llama.cpp stops generating.
                close = getattr(stream, "aclose", None)
                if close is not None:
                    await close()
                raise _RunawayStop(runaway)

    async def _run_calls(
        self,
        calls: list[ToolCall],
        scope: Scope,
        host: Host,
        hear: LoopListener,
        keep: _Keep,
        outcome: Outcome,
        *,
        skip: list[ToolCall],
        history: Sequence[ChatMessage] = (),
    ) -> dict[str, Envelope]:
        results: dict[str, Envelope] = {}

        async def one(call: ToolCall) -> None:
            unread = unread_target(call, history, scope.workspace_roots)
            if call in skip:
                envelope = Envelope.failure(
                    call.name, call.id, ErrorKind.REJECTED,
                    "not run: this exact call already failed; change the arguments or answer in text",
                )
            elif unread:
                # Shown only what the model's own read_file would get without a question.
                read = await self.dispatcher.execute_tool(read_call(call, unread), scope, asks_nobody())
                why = refusal(unread, read.content if read.ok else None)
                envelope = Envelope.failure(call.name, call.id, ErrorKind.BUSINESS, why)
            else:
                hear.on_tool_status(call.id, ToolStatus.PENDING)
                try:
                    envelope = await self.dispatcher.execute_tool(
                        call, scope, host, on_status=lambda status: hear.on_tool_status(call.id, status)
                    )
                except StoppedCall as stopped:  # its card says what it left, as its record does
                    results[call.id] = stopped.envelope
                    hear.on_tool_result(call.id, stopped.envelope)
                    tell_when_checked(hear, call.id, stopped.envelope)
                    owe_when_checked(self.dispatcher.late_findings, scope, stopped.envelope)
                    raise
            results[call.id] = envelope
            try:
                if call not in skip:
                    # Neither the person nor the model hears of a call before its audit record
                    # is safe from a crash (as the gateway's clients: ``Dispatcher.recorded``).
                    await self.dispatcher.recorded(call.name)
            finally:  # (Stop while waiting: the call ran, and its card says how it ended)
                hear.on_tool_result(call.id, envelope)
                tell_when_checked(hear, call.id, envelope)
                owe_when_checked(self.dispatcher.late_findings, scope, envelope)

        try:
            for group in self._batches(calls):
                if len(group) == 1:
                    await one(group[0])
                else:
                    await asyncio.gather(*(one(c) for c in group))
        except asyncio.CancelledError:
            for call in calls:
                if call.id not in results:
                    results[call.id] = Envelope.failure(call.name, call.id, ErrorKind.CANCELLED, for_person(
                        "cancelled by the person (Stop)", N_("You stopped this call.")))
                    hear.on_tool_result(call.id, results[call.id])
            self._record_results(calls, results, keep, outcome)
            raise
        self._record_results(calls, results, keep, outcome)
        return results

    def _batches(self, calls: list[ToolCall]) -> list[list[ToolCall]]:
        """Consecutive read-only calls form one concurrent batch; every other call is alone."""
        batches: list[list[ToolCall]] = []
        previous_was_read = False
        for call in calls:
            is_read = self._is_read(call)
            if is_read and previous_was_read:
                batches[-1].append(call)
            else:
                batches.append([call])
            previous_was_read = is_read
        return batches

    def _is_read(self, call: ToolCall) -> bool:
        entry = self.dispatcher.registry.get(call.name)
        settings = self.dispatcher.settings.current
        return entry is not None and effective_risk(entry, settings) is RiskLevel.READ

    @staticmethod
    def _record_results(
        calls: list[ToolCall], results: dict[str, Envelope], keep: _Keep, outcome: Outcome
    ) -> None:
        for call in calls:
            envelope = results[call.id]
            outcome.envelopes[call.id] = envelope
            keep(ChatMessage(role="tool", content=envelope.to_text(), tool_call_id=call.id, name=call.name))


class _Report(Protocol):
    def __call__(self, progress: Progress) -> None: ...


async def _tick(meter: ProgressMeter, report: _Report | None) -> None:
    """Elapsed time keeps moving while the model is silent (prompt processing on a CPU)."""
    assert report is not None
    while True:
        await asyncio.sleep(meter.interval)  # a display timer, not a wait for a condition
        progress = meter.tick()
        if progress is not None:
            report(progress)


class _RunawayStop(Exception):
    def __init__(self, runaway: Runaway) -> None:
        super().__init__(runaway.describe())
        self.runaway = runaway


class _Keep(Protocol):
    def __call__(self, message: ChatMessage) -> None: ...


def _request(history: Sequence[ChatMessage]) -> str:
    """The person's latest message (what the exchange answers)."""
    return next((m.content for m in reversed(history) if m.role == "user"), "")


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(read_json(arguments), sort_keys=True)
    except (json.JSONDecodeError, TypeError):
        return arguments
