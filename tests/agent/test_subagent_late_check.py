"""A sub-agent's command whose sandbox still ran when its result went is checked when it ends
(``Envelope.later_check``), maybe after the sub-agent has returned: the parent's ``delegate``
result then says what that check found in its transcript, and the parent's listener hears it
(``on_checked_later``: the card and the stored message are brought up to date). Before, the
parent's card kept the first account ('processes still ran') for good."""

from __future__ import annotations

import json
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from echo_desk.agent.delegate import DelegateTool, DelegationServices
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.tools import Tool, ToolExecutionContext, ToolResult
from echo_desk.tools.planted import Change, CheckedLater, Planted, planted_of
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import make_engine

PLANTED = Planted(".envrc", Change.CREATED, kept="/aside/.envrc")


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


class Heard(NullListener):
    def __init__(self) -> None:
        self.later: list[tuple[str, Envelope]] = []

    def on_checked_later(self, call_id: str, envelope: Envelope) -> None:
        self.later.append((call_id, envelope))


def _engine(tmp_path: Path, engines: list[Any], tool: StillRunning, child_calls: int = 1):  # type: ignore[no-untyped-def]
    dispatcher, factory, _settings = make_engine(tmp_path, tool)
    engines.append(dispatcher)
    steps: list[Any] = [calls(*((f"k{n}", "still_running", "{}") for n in range(child_calls))), say("ran it")]
    services = DelegationServices(model_factory=lambda: ScriptedModel(steps), dispatcher=dispatcher,
                                  schema_factory=factory)
    assert dispatcher.registry.register(DelegateTool(services)).ok
    return dispatcher, factory


async def _delegate(dispatcher, factory, scope: Scope, heard: Heard):  # type: ignore[no-untyped-def]
    args = json.dumps({"goal": "run it", "tools": ["still_running"]})
    loop = AgentLoop(ScriptedModel([calls(("d1", "delegate", args)), say("ok")]), dispatcher, factory)
    return await loop.run([ChatMessage(role="user", content="go")], scope, ScriptedHost(
        choice=ApprovalChoice.ALLOW_ONCE), heard)


def _results(envelope: Envelope) -> list[dict[str, Any]]:
    return [e for e in envelope.metadata["transcript"] if "result" in e]


async def test_a_check_ending_after_the_sub_agent_returned_reaches_the_parents_card(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = StillRunning(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool)
    outcome = await _delegate(dispatcher, factory, scope, heard)
    first = outcome.envelopes["d1"]
    [entry] = _results(first)
    assert entry["sandbox"]["checked_later"] is True and entry["sandbox"]["planted"] == []
    assert heard.later == []
    tool.checks[0].set_result(CheckedLater((PLANTED,), "/w"))  # (the sandbox's thread, in the app)
    [(call_id, later)] = heard.later
    assert call_id == "d1" and later.later_check is None
    [entry] = _results(later)
    assert entry["sandbox"]["checked_later"] is False and entry["sandbox"]["checked_late"] is True
    assert [p.path for p in planted_of(entry["sandbox"]["planted"])] == [".envrc"]
    assert later.content == first.content and later.planted == ()  # the sub-agent's call has its own row
    assert _results(first)[0]["sandbox"]["checked_later"] is True  # (the first account is not changed in place)


async def test_the_parent_hears_once_every_check_of_its_sub_agent_has_ended(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = StillRunning(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool, child_calls=2)
    await _delegate(dispatcher, factory, scope, heard)
    first, second = tool.checks
    second.set_result(CheckedLater(()))
    assert heard.later == []
    first.set_result(CheckedLater((PLANTED,), "/w"))
    [(_, later)] = heard.later
    assert [bool(e["sandbox"]["planted"]) for e in _results(later)] == [True, False]


async def test_a_check_that_ended_before_the_sub_agent_returned_is_in_its_first_result(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    class EndsAtOnce(StillRunning):
        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            result = await super().execute(params, ctx)
            self.checks[-1].set_result(CheckedLater((PLANTED,), "/w"))  # (before the loop hears the result)
            return result

    tool, heard = EndsAtOnce(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool)
    outcome = await _delegate(dispatcher, factory, scope, heard)
    [entry] = _results(outcome.envelopes["d1"])
    assert [p.path for p in planted_of(entry["sandbox"]["planted"])] == [".envrc"]
    assert outcome.envelopes["d1"].later_check is None and heard.later == []


async def test_a_failed_check_leaves_the_first_account_and_still_lets_the_others_through(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = StillRunning(), Heard()
    dispatcher, factory = _engine(tmp_path, engines, tool, child_calls=2)
    await _delegate(dispatcher, factory, scope, heard)
    first, second = tool.checks
    first.set_exception(OSError("gone"))
    second.set_result(CheckedLater((PLANTED,), "/w"))
    [(_, later)] = heard.later
    assert [e["sandbox"].get("checked_late", False) for e in _results(later)] == [False, True]
