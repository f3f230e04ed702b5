"""The model is told what a late sandbox check found (``agent.late_checks_told``): a command whose
sandbox still ran when its result went told the model only "checked when they end"; what the check
found once it ended reached the card, the stored message and the audit row, never the model. Through
the real dispatcher, conversation session and SQLite stores: the next exchange's messages hold one
note, once, capped for thousands of entries; nothing is said when the check found nothing. A
sub-agent's check goes to the sub-agent while it runs, else to its parent's next exchange."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from echo_desk.agent.delegate import DelegateTool, DelegationServices
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.agent.session import ConversationSession
from echo_desk.agent.undo.notes import NOTE_PREFIX
from echo_desk.store.conversations import ConversationStore
from echo_desk.tools import Tool, ToolExecutionContext, ToolResult
from echo_desk.tools.planted import Change, CheckedLater, Planted
from echo_desk.tools.planted_told import MOST_NAMED
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import make_engine

PLANTED = Planted(".envrc", Change.CREATED, kept="/data/put-aside/1/ws/.envrc")
#: What the model may read of the note for thousands of entries.
MOST_TOLD_CHARS = 4_000


class StillRunning(Tool):
    """A command whose sandbox outlives its result: checked when the test says it ended."""

    name = "still_running"
    description = "Run."
    parameters = {"type": "object", "properties": {}}

    def __init__(self) -> None:
        self.checks: list[Future[CheckedLater]] = []

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        check: Future[CheckedLater] = Future()
        self.checks.append(check)
        sandbox = {"sandboxed": True, "planted": [], "checked_later": True}
        return ToolResult.ok("exit code 0", metadata={"sandbox": sandbox}, later_check=check)


def _notes(messages: list[ChatMessage]) -> list[str]:
    return [m.content for m in messages if m.role == "user" and "was checked when it ended" in m.content]


class Conversation:
    """A stored conversation run through ``ConversationSession`` on the real dispatcher."""

    def __init__(self, tmp_path: Path, tool: Tool) -> None:
        self.dispatcher, self.factory, _settings = make_engine(tmp_path, tool)
        self.store = ConversationStore(tmp_path / "conversations.sqlite3")
        self.session = ConversationSession(self.store)
        self.conversation = self.store.create("", str(tmp_path))
        self.session.open(self.conversation)

    def exchange(self, text: str, *turns: Any) -> ScriptedModel:
        self.session.add_user(text)
        model = ScriptedModel(list(turns))
        outcome = asyncio.run(self.session.run_turn(model, self.dispatcher, self.factory,
                                                    ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE), max_turns=3))
        assert outcome.completed
        return model

    def stored_notes(self) -> list[str]:
        return _notes([m.message for m in self.store.messages(self.conversation.id)])

    def close(self) -> None:
        self.dispatcher.close()
        if self.dispatcher.audit is not None:
            self.dispatcher.audit.close()
        self.store.close()


def _run_then_check(tmp_path: Path, found: CheckedLater) -> tuple[list[ChatMessage], list[ChatMessage], list[str]]:
    """A command checked late, ``found`` once it ended after the exchange; the messages the model
    gets at the next exchange and the one after, and the notes the conversation kept."""
    tool = StillRunning()
    chat = Conversation(tmp_path, tool)
    try:
        chat.exchange("run it", calls(("c1", "still_running", "{}")), say("Done."))
        tool.checks[0].set_result(found)  # (the sandbox's thread, in the app)
        second = chat.exchange("and now?", say("Noted."))
        third = chat.exchange("again?", say("Still noted."))
        return second.seen[0][0], third.seen[0][0], chat.stored_notes()
    finally:
        chat.close()


def test_the_next_exchange_tells_the_model_once_what_the_late_check_found(tmp_path: Path) -> None:
    second, third, stored = _run_then_check(tmp_path, CheckedLater((PLANTED,), str(tmp_path)))
    [note] = _notes(second)
    assert note.startswith(NOTE_PREFIX)
    assert f"{tmp_path}/.envrc (created; moved to /data/put-aside/1/ws/.envrc)" in note
    assert "still_running c1" in note and "do not use it" in note
    assert second[-1].content == note and second[-2].content == "and now?"  # (after the person's words)
    assert _notes(third) == [note]  # (kept in the history, not told again)
    assert stored == [note]


def test_nothing_is_said_when_the_late_check_found_nothing(tmp_path: Path) -> None:
    tool = StillRunning()
    chat = Conversation(tmp_path, tool)
    try:
        chat.exchange("run it", calls(("c1", "still_running", "{}")), say("Done."))
        tool.checks[0].set_result(CheckedLater(()))
        second = chat.exchange("and now?", calls(("c2", "still_running", "{}")), say("Done again."))
        assert not [m for m in second.seen[0][0] if m.content.startswith(NOTE_PREFIX)]
        tool.checks[1].set_result(CheckedLater((PLANTED,), str(tmp_path)))
        third = chat.exchange("and now?", say("Noted."))
        [note] = _notes(third.seen[0][0])  # (the one that found something, alone)
        assert "still_running c2" in note and "c1" not in note
        assert chat.stored_notes() == [note]
    finally:
        chat.close()


def test_ten_thousand_entries_are_told_named_a_few_with_the_total(tmp_path: Path) -> None:
    many = tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED, kept=f"/aside/pkg{i:05}/.envrc") for i in range(10_000))
    second, _third, stored = _run_then_check(tmp_path, CheckedLater(many, str(tmp_path)))
    [note] = _notes(second)
    assert len(note) < MOST_TOLD_CHARS, note[:500]
    assert f"and {10_000 - MOST_NAMED:,} more (10,000 in all" in note
    assert note.count("/.envrc (created") == MOST_NAMED
    assert stored == [note]


def test_a_cancelled_or_failed_check_says_nothing(tmp_path: Path) -> None:
    tool = StillRunning()
    chat = Conversation(tmp_path, tool)
    try:
        chat.exchange("run it", calls(("c1", "still_running", "{}"), ("c2", "still_running", "{}")), say("Done."))
        tool.checks[0].cancel()
        tool.checks[1].set_exception(OSError("gone"))
        second = chat.exchange("and now?", calls(("c3", "still_running", "{}")), say("Done again."))
        assert not [m for m in second.seen[0][0] if m.content.startswith(NOTE_PREFIX)]
        tool.checks[2].set_result(CheckedLater((PLANTED,), str(tmp_path)))
        third = chat.exchange("and now?", say("Noted."))
        [note] = _notes(third.seen[0][0])
        assert "still_running c3" in note and "c1" not in note and "c2" not in note
    finally:
        chat.close()


# -- a sub-agent's late check ------------------------------------------------------------------------

def _delegating(tmp_path: Path, engines: list[Any], tool: StillRunning, child: ScriptedModel):  # type: ignore[no-untyped-def]
    dispatcher, factory, _settings = make_engine(tmp_path, tool)
    engines.append(dispatcher)
    services = DelegationServices(model_factory=lambda: child, dispatcher=dispatcher, schema_factory=factory)
    assert dispatcher.registry.register(DelegateTool(services)).ok
    return dispatcher, factory


async def _exchange(dispatcher, factory, scope: Scope, history: list[ChatMessage], *turns: Any):  # type: ignore[no-untyped-def]
    model = ScriptedModel(list(turns))
    outcome = await AgentLoop(model, dispatcher, factory).run(history, scope, ScriptedHost(
        choice=ApprovalChoice.ALLOW_ONCE), NullListener())
    return model, outcome


DELEGATE = json.dumps({"goal": "run it", "tools": ["still_running"]})


async def test_a_check_ending_while_the_sub_agent_runs_is_told_to_the_sub_agent(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    class EndsAtOnce(StillRunning):  # (ended before the sub-agent's next turn)
        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            result = await super().execute(params, ctx)
            self.checks[-1].set_result(CheckedLater((PLANTED,), "/w"))
            return result

    child = ScriptedModel([calls(("k1", "still_running", "{}")), say("ran it")])
    dispatcher, factory = _delegating(tmp_path, engines, EndsAtOnce(), child)
    history = [ChatMessage(role="user", content="go")]
    _model, outcome = await _exchange(dispatcher, factory, scope, history, calls(("d1", "delegate", DELEGATE)), say("ok"))
    [note] = _notes(child.seen[1][0])
    assert "/w/.envrc (created" in note and "still_running k1" in note
    later, _ = await _exchange(dispatcher, factory, scope, [*history, *outcome.messages,
                                                            ChatMessage(role="user", content="next")], say("fine"))
    assert _notes(later.seen[0][0]) == []  # (told to the sub-agent, not again to its parent)


async def test_a_check_ending_after_the_sub_agent_returned_is_told_to_the_parent(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool = StillRunning()
    child = ScriptedModel([calls(("k1", "still_running", "{}")), say("ran it")])
    dispatcher, factory = _delegating(tmp_path, engines, tool, child)
    history = [ChatMessage(role="user", content="go")]
    _model, outcome = await _exchange(dispatcher, factory, scope, history, calls(("d1", "delegate", DELEGATE)), say("ok"))
    assert _notes(child.seen[1][0]) == []
    tool.checks[0].set_result(CheckedLater((PLANTED,), "/w"))
    history = [*history, *outcome.messages, ChatMessage(role="user", content="next")]
    later, outcome = await _exchange(dispatcher, factory, scope, history, say("fine"))
    [note] = _notes(later.seen[0][0])
    assert "/w/.envrc (created" in note and "still_running k1" in note
    again, _ = await _exchange(dispatcher, factory, scope, [*history, *outcome.messages], say("still fine"))
    assert _notes(again.seen[0][0]) == []  # (told once: the listener keeps it, the loop does not owe it again)
