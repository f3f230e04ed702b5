"""A sub-agent may start a sub-agent, which may start one more (``subagents.MAX_DEPTH``: three
below the conversation). The inner one's transcript is kept with its ``delegate`` step in the
outer one's, so the saved conversation has its steps; each of its calls knows the ``delegate``
calls holding its step (``ToolExecutionContext.held_by``, kept with an owed check); a check of its
command ending late reaches the conversation's ``delegate`` card through them. Before, the inner
sub-agent's steps were kept nowhere."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.delegate import DelegateTool, DelegationServices
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.tools import ToolExecutionContext, ToolResult
from echo_desk.tools.planted import CheckedLater, planted_of
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import make_engine
from tests.agent.test_subagent_late_check import PLANTED, Heard, StillRunning


class Noting(StillRunning):
    """``StillRunning``, noting which ``delegate`` calls hold each call."""

    def __init__(self) -> None:
        super().__init__()
        self.held_by: list[tuple[str, ...]] = []

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        self.held_by.append(ctx.held_by)
        return await super().execute(params, ctx)


def _args(tools: list[str]) -> str:
    return json.dumps({"goal": "run it", "tools": tools})


async def _run_nested(tmp_path: Path, engines: list[Any], scope: Scope, tool: Noting, heard: Heard,
                      *inner_scripts: list[Any]) -> Any:
    """The conversation delegates (d1) to a sub-agent that delegates (e1) to one running
    ``inner_scripts[0]``; each further script is a sub-agent that the one before started (f1)."""
    dispatcher, factory, _settings = make_engine(tmp_path, tool)
    engines.append(dispatcher)
    scripts = iter([[calls(("e1", "delegate", _args(["delegate", "still_running"]))), say("done")],
                    *inner_scripts])
    services = DelegationServices(model_factory=lambda: ScriptedModel(next(scripts)), dispatcher=dispatcher,
                                  schema_factory=factory)
    assert dispatcher.registry.register(DelegateTool(services)).ok
    top = ScriptedModel([calls(("d1", "delegate", _args(["delegate", "still_running"]))), say("ok")])
    return await AgentLoop(top, dispatcher, factory).run(
        [ChatMessage(role="user", content="go")], scope, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE), heard)


def _entry(transcript: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    [entry] = [e for e in transcript if e.get("result") == call_id]
    return entry


async def test_the_sub_agents_sub_agent_is_kept_nested_and_its_late_check_reaches_the_card(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = Noting(), Heard()
    outcome = await _run_nested(tmp_path, engines, scope, tool, heard,
                                [calls(("k1", "still_running", "{}")), say("ran it")])
    assert tool.held_by == [("d1", "e1")]
    first = outcome.envelopes["d1"]
    nested = _entry(first.metadata["transcript"], "e1")["transcript"]
    assert [e.get("call") or e.get("result") or e.get("assistant") for e in nested] == [
        "still_running", "k1", "ran it"]
    assert _entry(nested, "k1")["sandbox"]["checked_later"] is True
    tool.checks[0].set_result(CheckedLater((PLANTED,), "/w"))  # its sandbox ended after both returned
    [(call_id, later)] = heard.later
    step = _entry(_entry(later.metadata["transcript"], "e1")["transcript"], "k1")
    assert call_id == "d1" and step["sandbox"]["checked_late"] is True
    assert [p.path for p in planted_of(step["sandbox"]["planted"])] == [".envrc"]


async def test_three_sub_agents_deep_each_is_kept_within_its_parents_step_and_a_fourth_is_refused(
        tmp_path: Path, engines: list[Any], scope: Scope) -> None:
    tool, heard = Noting(), Heard()
    outcome = await _run_nested(
        tmp_path, engines, scope, tool, heard,
        [calls(("f1", "delegate", _args(["delegate", "still_running"]))), say("done")],
        [calls(("g1", "delegate", _args(["still_running"])), ("k1", "still_running", "{}")), say("ran it")])
    assert tool.held_by == [("d1", "e1", "f1")]
    second = _entry(outcome.envelopes["d1"].metadata["transcript"], "e1")["transcript"]
    third = _entry(second, "f1")["transcript"]
    assert _entry(third, "k1")["sandbox"]["checked_later"] is True
    refused = _entry(third, "g1")  # (delegate was refused to it: too deep)
    assert refused["envelope"]["ok"] is False and "transcript" not in refused
