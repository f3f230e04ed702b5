"""The model hears, at its next turn, that the person reverted its change — once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime

sys.path.insert(0, str(Path(__file__).parents[1] / "agent"))
from fake_model import ScriptedModel, calls, say


async def test_revert_is_told_in_the_next_turn(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                              workspace: Path) -> None:
    target = workspace / "n.txt"
    target.write_text("mine\n")
    write = json.dumps({"path": "n.txt", "content": "agent\n"})
    # It reads the file first: an existing file not read in the conversation is not overwritten.
    model = ScriptedModel([calls(("c0", "read_file", json.dumps({"path": "n.txt"}))),
                           calls(("c1", "write_file", write)), say("done"), say("ok"), say("ok again")])
    loop = AgentLoop(model, runtime.dispatcher, runtime.schema_factory)
    first = await loop.run([ChatMessage(role="user", content="change it")], scope, host)
    assert target.read_text() == "agent\n"
    [record] = runtime.reverter.changes.for_call("c1") if runtime.reverter else []
    assert record.turn_id.startswith("turn_")  # the exchange is one turn for "Revert this turn"
    assert runtime.reverter is not None
    assert runtime.reverter.apply(runtime.reverter.plan_turn(scope.conversation_id, record.turn_id)).complete
    history = [ChatMessage(role="user", content="change it"), *first.messages,
               ChatMessage(role="user", content="thanks")]
    await loop.run(history, scope, host)
    told = model.seen[-1][0]
    notes = [m for m in told if m.role == "user" and "the person reverted your change to" in m.content]
    assert len(notes) == 1 and str(target) in notes[0].content
    await loop.run(history, scope, host)
    assert not any("the person reverted" in m.content for m in model.seen[-1][0])
