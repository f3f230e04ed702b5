"""The agent loop against a scripted model: turns, concurrency, guards, errors, Stop."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop, NullListener, StopReason
from echo_desk.agent.model import ChatMessage, ModelError, ModelErrorKind, TextDelta
from echo_desk.agent.status import ToolStatus
from echo_desk.store.audit_journal import journal_path
from echo_desk.tools import ErrorKind, ToolResult
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import Echo, Sleeper, WaitsForCancel, WriteNote, make_engine


class Recorder(NullListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def on_text(self, delta: str) -> None:
        self.events.append(("text", delta))

    def on_tool_status(self, call_id: str, status: ToolStatus) -> None:
        assert isinstance(status, ToolStatus)  # typed, never a free string
        self.events.append(("status", (call_id, status)))

    def on_tool_result(self, call_id: str, envelope) -> None:  # type: ignore[no-untyped-def]
        self.events.append(("result", (call_id, envelope.ok, envelope.error_kind)))

    def on_message(self, message: ChatMessage) -> None:
        self.events.append(("message", message.role))

    def on_error(self, message: str) -> None:
        self.events.append(("error", message))


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


@pytest.fixture
def engine(tmp_path, engines):
    made = make_engine(tmp_path, Echo(), Sleeper(), WriteNote(), WaitsForCancel())
    engines.append(made[0])
    return made


def loop_for(engine, model, **kw) -> AgentLoop:  # type: ignore[no-untyped-def]
    return AgentLoop(model, engine[0], engine[1], **kw)


async def test_text_answer_ends_the_exchange(engine, scope, host) -> None:
    rec = Recorder()
    outcome = await loop_for(engine, ScriptedModel([say("hello there")])).run(user("hi"), scope, host, rec)
    assert outcome.completed and outcome.final_text == "hello there"
    assert [e for e in rec.events if e[0] == "text"] == [("text", "hello "), ("text", "there")]


async def test_tool_call_goes_through_the_dispatcher_and_the_envelope_goes_back(engine, scope, host) -> None:
    model = ScriptedModel([calls(("c1", "echo", '{"text": "ping"}')), say("done")])
    outcome = await loop_for(engine, model).run(user("echo ping"), scope, host)
    assert [m.role for m in outcome.messages] == ["assistant", "tool", "assistant"]
    tool_message = outcome.messages[1]
    assert tool_message.tool_call_id == "c1"
    assert json.loads(tool_message.content)["content"] == "ping"
    second_request_messages = model.seen[1][0]
    assert second_request_messages[-1] == tool_message
    assert {d.name for d in model.seen[0][1]} >= {"echo", "write_note"}
    (row,) = engine[0].audit.query(tool="echo")
    assert row["call_id"] == "c1"


class ReadsTheAuditFile(NullListener):
    """What the next start would find on disk the moment each result is heard: the calls in the
    audit database and in its journal (which it folds in)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.found: dict[str, list[str]] = {}

    def on_tool_result(self, call_id: str, envelope) -> None:  # type: ignore[no-untyped-def]
        with sqlite3.connect(f"file:{self.path}?mode=ro", uri=True) as db:
            found = [row[0] for row in db.execute("SELECT call_id FROM audit")]
        journal = journal_path(self.path).read_text().splitlines()
        self.found[call_id] = found + [json.loads(line)["row"][3] for line in journal if line]


async def test_a_result_is_heard_only_once_its_audit_record_is_in_the_file(engine, scope, host) -> None:
    """The writer batches records for up to 20 ms: the card and the model heard of a call (a
    write, here) whose record a crash at that moment would have lost (as the gateway's clients
    did, s179). Now each is heard once its record is on disk (the audit journal, or the database)."""
    model = ScriptedModel([calls(("c1", "write_note", '{"path": "n.txt", "content": "x"}')),
                           calls(("c2", "echo", '{"text": "ping"}')), say("done")])
    reader = ReadsTheAuditFile(engine[0].audit.path)
    outcome = await loop_for(engine, model).run(user("note"), scope, ScriptedHost(ApprovalChoice.ALLOW_ONCE), reader)
    assert outcome.completed
    assert "c1" in reader.found["c1"] and "c2" in reader.found["c2"]


async def test_invalid_json_arguments_become_a_validation_envelope_the_model_sees(engine, scope, host) -> None:
    model = ScriptedModel([calls(("c1", "echo", '{"text": ')), say("sorry")])
    outcome = await loop_for(engine, model).run(user("x"), scope, host)
    assert outcome.envelopes["c1"].error_kind is ErrorKind.VALIDATION
    assert outcome.completed


class Meeting(Sleeper):
    """A read call that returns only once all three of the turn's calls are running at the same
    time (a barrier on their worker threads): run one after another, the first waits out the
    barrier's deadline and fails. Not a stopwatch: a loaded machine only makes it slower."""

    name = "meeting"

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=10)

    async def execute(self, params, ctx):  # type: ignore[no-untyped-def]
        self.barrier.wait()  # BrokenBarrierError (the call fails) unless the others arrive
        return ToolResult.ok("met")


async def test_read_calls_of_one_turn_run_concurrently(tmp_path, engines, scope, host) -> None:
    made = make_engine(tmp_path, Meeting(parties=3))
    engines.append(made[0])
    model = ScriptedModel([
        calls(("a", "meeting", '{"seconds": 0}'), ("b", "meeting", '{"seconds": 0}'),
              ("c", "meeting", '{"seconds": 0}')),
        say("ok"),
    ])
    outcome = await loop_for(made, model).run(user("x"), scope, host)
    assert [e.ok for e in outcome.envelopes.values()] == [True, True, True], outcome.envelopes


async def test_side_effects_run_one_by_one_in_the_models_order(engine, scope, workspace) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    model = ScriptedModel([
        calls(("w1", "write_note", '{"path": "f", "content": "first"}'),
              ("w2", "write_note", '{"path": "f", "content": "second"}')),
        say("ok"),
    ])
    await loop_for(engine, model).run(user("x"), scope, host)
    assert [r.call_id for r in host.requests] == ["w1", "w2"]
    assert (workspace / "f").read_text() == "second"


async def test_the_same_failing_call_repeated_stops_the_exchange(engine, scope, host) -> None:
    bad = ("c", "echo", '{"text": 1}')
    model = ScriptedModel([calls(bad), calls(bad), calls(bad), say("never reached")])
    rec = Recorder()
    outcome = await loop_for(engine, model).run(user("x"), scope, host, rec)
    assert outcome.stop_reason is StopReason.REPEATED_FAILURE
    assert len(engine[0].audit.query(tool="echo")) == 2  # the third was not run
    assert ("error", outcome.error) in rec.events


async def test_turn_limit(engine, scope, host) -> None:
    model = ScriptedModel([calls((f"c{i}", "echo", json.dumps({"text": str(i)}))) for i in range(10)])
    outcome = await loop_for(engine, model, max_turns=3).run(user("x"), scope, host)
    assert outcome.stop_reason is StopReason.MAX_TURNS and "3 turns" in outcome.error


async def test_model_error_is_reported_not_raised(engine, scope, host) -> None:
    error = ModelError("no server at http://127.0.0.1:9 — is it running?", kind=ModelErrorKind.CONNECTION)
    rec = Recorder()
    outcome = await loop_for(engine, ScriptedModel([error])).run(user("x"), scope, host, rec)
    assert outcome.stop_reason is StopReason.MODEL_ERROR and "127.0.0.1:9" in outcome.error
    assert ("error", outcome.error) in rec.events


async def test_stop_during_a_tool_cancels_it_and_records_cancelled(engine, scope, host) -> None:
    waits = engine[0].registry.get("waits").tool
    rec = Recorder()
    model = ScriptedModel([calls(("c1", "waits", "{}")), say("never")])
    task = asyncio.create_task(loop_for(engine, model).run(user("x"), scope, host, rec))
    assert await asyncio.to_thread(waits.started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(waits.saw_cancel.wait, 5)
    assert ("result", ("c1", False, ErrorKind.CANCELLED)) in rec.events
    assert [e for e in rec.events if e[0] == "message"] == [("message", "assistant"), ("message", "tool")]


async def test_stop_during_streaming_keeps_the_partial_text(engine, scope, host) -> None:
    first_text = asyncio.Event()

    class Waker(Recorder):
        def on_text(self, delta: str) -> None:
            super().on_text(delta)
            first_text.set()

    rec = Waker()
    slow = ScriptedModel([[TextDelta(f"w{i} ") for i in range(1000)]], delay=0.01)
    task = asyncio.create_task(loop_for(engine, slow).run(user("x"), scope, host, rec))
    async with asyncio.timeout(5):
        await first_text.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ("message", "assistant") in rec.events


async def test_unreadable_model_output_is_retried_once_without_tools(engine, scope, host) -> None:
    garbled = ModelError("output does not match the expected format", kind=ModelErrorKind.MODEL_OUTPUT)
    model = ScriptedModel([garbled, say("plain answer")])
    outcome = await loop_for(engine, model).run(user("hi"), scope, host)
    assert outcome.completed and outcome.final_text == "plain answer"
    assert [choice for _, _, choice in model.seen] == ["auto", "none"]


async def test_unreadable_output_twice_is_reported(engine, scope, host) -> None:
    garbled = ModelError("output does not match the expected format", kind=ModelErrorKind.MODEL_OUTPUT)
    outcome = await loop_for(engine, ScriptedModel([garbled, garbled])).run(user("hi"), scope, host)
    assert outcome.stop_reason is StopReason.MODEL_ERROR


async def test_overwriting_a_file_not_read_is_not_run_and_the_model_is_told(tmp_path, scope, host, workspace,
                                                                             engines) -> None:
    from echo_desk.builtins import ReadFile, WriteFile

    engine = make_engine(tmp_path, ReadFile(), WriteFile())
    engines.append(engine[0])
    (workspace / "notes.txt").write_text("milk\neggs\n")
    blind = '{"path": "notes.txt", "content": "Buy butter"}'
    model = ScriptedModel([calls(("c1", "write_file", blind)),
                           calls(("c2", "write_file", '{"path": "notes.txt", "content": "milk\\neggs\\nBuy butter\\n"}')),
                           say("added")])
    outcome = await loop_for(engine, model).run(user("add Buy butter to notes.txt"), scope, host)
    first = outcome.envelopes["c1"]
    assert not first.ok and first.error_kind is ErrorKind.BUSINESS and "was not read" in first.error
    # What read_file returned (its header, then the lines), as the model's own read would show.
    assert "It holds now:\n[" in first.error and "]\nmilk\neggs\n\n[end of file]" in first.error
    assert outcome.envelopes["c2"].ok  # shown the file, it writes what keeps it
    assert (workspace / "notes.txt").read_text() == "milk\neggs\nBuy butter\n"


async def test_the_refusal_shows_only_what_read_file_may_show(tmp_path, scope, host, workspace, engines) -> None:
    """The content comes from a real read_file through the dispatcher: a disabled read_file or a
    read the rules would ask about shows nothing, and the person is never asked for it."""
    from echo_desk.builtins import ReadFile, WriteFile
    from echo_desk.store.settings import ToolPolicy

    engine = make_engine(tmp_path, ReadFile(), WriteFile())
    engines.append(engine[0])
    settings = engine[2]
    (workspace / "notes.txt").write_text("milk\neggs\n")
    blind = '{"path": "notes.txt", "content": "Buy butter"}'
    asked = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)

    settings.set_tool("read_file", enabled=False)
    outcome = await loop_for(engine, ScriptedModel([calls(("c1", "write_file", blind)), say("ok")])).run(
        user("add Buy butter"), scope, asked)
    assert "was not read" in outcome.envelopes["c1"].error and "milk" not in outcome.envelopes["c1"].error

    settings.set_tool("read_file", enabled=True)
    settings.set_tool("read_file", policy=ToolPolicy.ASK)
    outcome = await loop_for(engine, ScriptedModel([calls(("c2", "write_file", blind)), say("ok")])).run(
        user("add Buy butter"), scope, asked)
    assert "was not read" in outcome.envelopes["c2"].error and "milk" not in outcome.envelopes["c2"].error
    assert asked.requests == []  # nobody was asked about a read they did not request
    assert (workspace / "notes.txt").read_text() == "milk\neggs\n"
