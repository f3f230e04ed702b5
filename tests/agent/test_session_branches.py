"""Editing, regenerating and switching branches in the Qt-free session: what the model is told
is exactly the chosen branch, with a real store and runtime and a scripted model that records
every request; and the footer figures of each answer are kept with it."""

from __future__ import annotations

import asyncio

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import StreamEvent, Usage
from echo_desk.agent.session import ConversationSession
from echo_desk.runtime import Runtime
from tests.agent.fake_model import ScriptedModel, say


def _answer(text: str, tokens_in: int = 0, tokens_out: int = 0) -> list[StreamEvent]:
    events = say(text)
    return [*events[:-1], Usage(input_tokens=tokens_in, output_tokens=tokens_out), events[-1]]


def _turn(session: ConversationSession, runtime: Runtime, model: ScriptedModel) -> None:
    outcome = asyncio.run(session.run_turn(model, runtime.dispatcher, runtime.schema_factory,
                                           ScriptedHost(choice=ApprovalChoice.DENY), max_turns=3))
    assert outcome.completed


def _told(model: ScriptedModel) -> list[tuple[str, str]]:
    """What the model received in its last request, without the system prompt."""
    messages = model.seen[-1][0]
    assert messages[0].role == "system"
    return [(m.role, m.content) for m in messages[1:]]


def _chat(session: ConversationSession, runtime: Runtime, model: ScriptedModel, *texts: str) -> None:
    for text in texts:
        session.add_user(text)
        _turn(session, runtime, model)


def test_an_edited_message_is_answered_from_the_new_branch_only(runtime, store, workspace):
    conversation = store.create("", str(workspace))
    session = ConversationSession(store)
    session.open(conversation)
    model = ScriptedModel([_answer("A1."), _answer("A2."), _answer("A2 again."), _answer("A3.")])
    _chat(session, runtime, model, "first", "second")
    second = session.nodes[2]

    new = session.edit_user(second, "second, edited")
    assert session.branch_position(new).index == 2 and session.branch_position(new).count == 2
    _turn(session, runtime, model)
    assert _told(model) == [("user", "first"), ("assistant", "A1."), ("user", "second, edited")]
    assert [m.message.content for m in store.messages(conversation.id)] == [
        "first", "A1.", "second, edited", "A2 again."]

    # Back to the first version: the old answer is there and the next request carries it.
    shown = session.switch_to(session.branch_step(new, -1))
    assert [m.message.content for m in shown] == ["first", "A1.", "second", "A2."]
    session.add_user("third")
    _turn(session, runtime, model)
    assert _told(model) == [("user", "first"), ("assistant", "A1."), ("user", "second"),
                            ("assistant", "A2."), ("user", "third")]

    # A new session over the same store (a restart) sees the same branch and both versions.
    again = ConversationSession(store)
    again.open(store.get(conversation.id))
    assert [m.content for m in again.history] == ["first", "A1.", "second", "A2.", "third", "A3."]
    assert again.branch_position(again.nodes[2]).count == 2
    assert [m.content for m in again.history] == [m.content for m in session.history]


def test_regenerate_answers_the_same_question_again_and_keeps_the_old_answer(runtime, store, workspace):
    conversation = store.create("", str(workspace))
    session = ConversationSession(store)
    session.open(conversation)
    model = ScriptedModel([_answer("Old answer.", 50, 3), _answer("New answer.", 50, 4)])
    _chat(session, runtime, model, "question")
    old = session.nodes[1]

    assert session.regenerate() is True
    assert [m.content for m in session.history] == ["question"]
    _turn(session, runtime, model)
    assert _told(model) == [("user", "question")]  # the old answer is not shown to the model
    assert [m.content for m in session.history] == ["question", "New answer."]
    position = session.branch_position(session.nodes[1])
    assert (position.index, position.count) == (2, 2) and position.step(-1) == old
    assert [m.message.content for m in session.switch_to(old)] == ["question", "Old answer."]


def test_regenerate_with_nothing_asked_does_nothing(store, workspace):
    session = ConversationSession(store)
    session.open(store.create("", str(workspace)))
    assert session.regenerate() is False
    assert session.history == []


def test_only_the_persons_messages_can_be_edited(runtime, store, workspace):
    session = ConversationSession(store)
    session.open(store.create("", str(workspace)))
    _chat(session, runtime, ScriptedModel([_answer("Hi.")]), "hello")
    with pytest.raises(ValueError):
        session.edit_user(session.nodes[1], "not mine")
    with pytest.raises(ValueError):
        session.edit_user(session.nodes[0], "   ")
    with pytest.raises(KeyError):
        session.edit_user("unknown", "text")
    assert [m.content for m in session.history] == ["hello", "Hi."]


def test_each_answer_keeps_its_tokens_and_time(runtime, store, workspace):
    conversation = store.create("", str(workspace))
    session = ConversationSession(store)
    session.open(conversation)
    _chat(session, runtime, ScriptedModel([_answer("Counted.", 120, 7), say("Uncounted.")], delay=0.002), "a", "b")
    stored = store.messages(conversation.id)
    counted, uncounted = stored[1].stats, stored[3].stats
    assert (counted.input_tokens, counted.output_tokens) == (120, 7)
    assert counted.elapsed_seconds > 0 and counted.first_token_seconds is not None
    assert (uncounted.input_tokens, uncounted.output_tokens) == (None, None)  # not reported: unknown
    assert uncounted.tokens_per_second is None
    assert stored[0].stats is None and stored[2].stats is None  # the person's messages have none


def test_nothing_is_edited_or_regenerated_while_a_turn_runs(runtime, store, workspace):
    session = ConversationSession(store)
    session.open(store.create("", str(workspace)))
    _chat(session, runtime, ScriptedModel([_answer("Hi.")]), "hello")

    async def scenario() -> None:
        session.add_user("talk")
        task = session.start_turn(ScriptedModel([say("a b c d e f")], delay=0.05), runtime.dispatcher,
                                  runtime.schema_factory, ScriptedHost(choice=ApprovalChoice.DENY), max_turns=2)
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError):
            session.edit_user(session.nodes[0], "changed")
        with pytest.raises(RuntimeError):
            session.regenerate()
        session.stop()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())
    assert [m.content for m in session.history][:3] == ["hello", "Hi.", "talk"]
    assert session.branch_position(session.nodes[0]) is None  # no second version was made


@pytest.mark.parametrize("stored", [None, "text", [], {"input_tokens": -3, "output_tokens": "7"},
                                    {"input_tokens": True, "elapsed_seconds": "slow"}])
def test_damaged_footer_figures_read_as_unknown(stored):
    from echo_desk.store.answer_stats import AnswerStats

    stats = AnswerStats.from_json(stored)
    assert stats is None or (stats.input_tokens, stats.output_tokens, stats.elapsed_seconds) == (None, None, 0.0)
    assert stats is None or stats.tokens_per_second is None
