"""Claims of a change in the model's answer, checked against what the exchange really did."""

from __future__ import annotations

import pytest

from echo_desk.agent.claims import claims_change
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import Echo, WriteNote, make_engine


@pytest.mark.parametrize("text", [
    "I added the line 'Buy butter' to notes.txt.",
    "The file has been updated successfully.",
    "Done: greeting.txt was created.",
    "已将 面包 添加到 shopping.txt 末尾。",
    "文件已修改。",
    "我在 shopping.txt 末尾添加了面包。",
])
def test_claims(text: str) -> None:
    assert claims_change(text)


@pytest.mark.parametrize("text", [
    "The meeting is in room B12.",
    "The change was denied, so notes.txt was not changed.",
    "I could not write the file: permission denied.",
    "You can rename it with mv.",
    "操作已被拒绝，文件没有修改。",
    "notes.txt 里有两行。",
])
def test_no_claims(text: str) -> None:
    assert not claims_change(text)


@pytest.fixture
def engine(tmp_path, engines):  # type: ignore[no-untyped-def]
    made = make_engine(tmp_path, Echo(), WriteNote())
    engines.append(made[0])
    return made


def _args() -> str:
    return '{"path": "n.txt", "content": "x"}'


async def test_claim_after_a_denied_write_is_marked(engine, scope) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([calls(("c1", "write_note", _args())), say("I added the line to n.txt.")])
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert not outcome.envelopes["c1"].ok
    assert not outcome.made_changes and outcome.unbacked_claim


async def test_claim_after_a_successful_write_is_not_marked(engine, scope) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([calls(("c1", "write_note", _args())), say("I added the line to n.txt.")])
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    outcome = await AgentLoop(model, engine[0], engine[1]).run([ChatMessage(role="user", content="x")], scope, host)
    assert outcome.envelopes["c1"].ok
    assert outcome.made_changes and not outcome.unbacked_claim


async def test_claim_without_any_call_is_marked(engine, scope) -> None:  # type: ignore[no-untyped-def]
    model = ScriptedModel([say("I have updated notes.txt for you.")])
    outcome = await AgentLoop(model, engine[0], engine[1]).run(
        [ChatMessage(role="user", content="x")], scope, ScriptedHost())
    assert outcome.unbacked_claim
