"""The Qt-free conversation session, with a real store and runtime and a scripted model; and
``echo-desk ask`` through it (the app's side is in tests/ui/chat/test_chat.py)."""

from __future__ import annotations

import argparse
import asyncio

from echo_desk.agent.session import TITLE_LENGTH, ConversationSession, title_from_text
from tests.agent.fake_model import ScriptedModel, say


def test_the_model_receives_the_system_prompt_with_the_workspace_then_the_history(runtime, store, workspace):
    conversation = store.create("", str(workspace))
    session = ConversationSession(store)
    session.open(conversation)
    model = ScriptedModel([say("Hello.")])
    assert session.add_user("hi there") is True
    outcome = asyncio.run(session.run_turn(model, runtime.dispatcher, runtime.schema_factory, _host(),
                                           max_turns=3))
    assert outcome.completed
    sent = model.seen[0][0]
    assert [m.role for m in sent] == ["system", "user"]
    assert str(workspace) in sent[0].content
    assert sent[1].content == "hi there"
    # Everything but the system prompt is stored and kept, in order.
    assert [m.message.role for m in store.messages(conversation.id)] == ["user", "assistant"]
    assert [m.role for m in session.history] == ["user", "assistant"]
    assert store.get(conversation.id).title == "hi there"


def test_a_reopened_conversation_sends_its_stored_history_after_the_prompt(runtime, store, workspace):
    conversation = store.create("Kept", str(workspace))
    first = ConversationSession(store)
    first.open(conversation)
    assert first.add_user("one") is False  # a named conversation keeps its name
    asyncio.run(first.run_turn(ScriptedModel([say("A.")]), runtime.dispatcher, runtime.schema_factory, _host(),
                               max_turns=3))
    again = ConversationSession(store)
    again.open(store.get(conversation.id))
    again.add_user("two")
    model = ScriptedModel([say("B.")])
    asyncio.run(again.run_turn(model, runtime.dispatcher, runtime.schema_factory, _host(), max_turns=3))
    assert [(m.role, m.content) for m in model.seen[0][0][1:]] == [("user", "one"), ("assistant", "A."),
                                                                  ("user", "two")]
    assert store.get(conversation.id).title == "Kept"


def test_stop_cancels_the_running_turn(runtime, store, workspace):
    session = ConversationSession(store)
    session.open(store.create("", str(workspace)))
    session.add_user("talk")

    async def scenario() -> bool:
        task = session.start_turn(ScriptedModel([say("a b c d e f g h")], delay=0.05), runtime.dispatcher,
                                  runtime.schema_factory, _host(), max_turns=3)
        assert session.busy
        await asyncio.sleep(0)  # let it start streaming
        session.stop()
        await asyncio.wait([task])
        return task.cancelled()

    assert asyncio.run(scenario()) is True
    assert not session.busy


def test_titles_are_folded_and_cut():
    assert title_from_text("Plan a   trip\nto Kyoto") == "Plan a trip to Kyoto"
    long = title_from_text("x" * 100)
    assert len(long) == TITLE_LENGTH and long.endswith("…")


def test_ask_sends_the_same_system_prompt_through_the_cli_path(runtime, workspace, monkeypatch, capsys):
    import echo_desk.providers.factory as factory
    from echo_desk.cli.ask import run_ask

    model = ScriptedModel([say("Done.")])
    monkeypatch.setattr(factory, "create_model", lambda *a, **k: model)
    args = argparse.Namespace(prompt="what is here?", workspace=workspace, provider="local", base_url=None,
                              model=None, json=False, yes=False, no=True)
    assert asyncio.run(run_ask(runtime, args)) == 0
    sent = model.seen[0][0]
    assert [m.role for m in sent] == ["system", "user"]
    assert str(workspace.resolve()) in sent[0].content
    assert sent[1].content == "what is here?"
    assert "Done." in capsys.readouterr().out


def _host():
    from echo_desk.agent.host import ApprovalChoice, ScriptedHost

    return ScriptedHost(choice=ApprovalChoice.DENY)
