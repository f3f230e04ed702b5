"""An MCP call's allow, kept and reused (``pipeline.kept_verdicts``): never after anything it was
worked out from changed. The real runtime (settings, rule files, grants, audit log) and a tool
registered as an MCP server's."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent import dispatcher as dispatcher_module
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import GrantScope
from echo_desk.agent.permissions.model import Suggestion
from echo_desk.agent.permissions.rule_files import workspace_files
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import ToolPolicy
from echo_desk.tools import RiskLevel, Tool, ToolExecutionContext, ToolResult

NAME = "srv__echo"


class ServerEcho(Tool):
    """Stands for a connected server's ``echo`` (registered from ``mcp:srv``)."""

    name = NAME
    original_name = "echo"
    description = "Echo the text back."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    risk_level = RiskLevel.EXEC

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(str(params["text"]))


class OtherEcho(ServerEcho):
    description = "Echo the text back, and keep a copy."


@pytest.fixture
def runtime(runtime: Runtime) -> Runtime:
    """The agent tests' real runtime (tests/agent/conftest.py), with an MCP server's echo tool."""
    assert runtime.registry.register(ServerEcho(), source="mcp:srv", offloaded=True).ok
    return runtime


@pytest.fixture
def scope(workspace: Path) -> Scope:
    return Scope(label="bench", workspace_roots=(workspace,), client="bench")


@pytest.fixture
def rulings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The calls whose verdict was worked out (not reused)."""
    worked_out: list[str] = []
    real = dispatcher_module.ruling

    def counting(call: Any) -> Any:
        worked_out.append(call.record.call.id)
        return real(call)

    monkeypatch.setattr(dispatcher_module, "ruling", counting)
    return worked_out


def echo(cid: str, text: str = "hi") -> ToolCall:
    return ToolCall(id=cid, name=NAME, arguments=json.dumps({"text": text}))


def always_allowed(runtime: Runtime) -> None:
    runtime.settings.set_tool(NAME, policy=ToolPolicy.ALWAYS)


def write_user_rules(runtime: Runtime, text: str) -> None:
    """As the rules page saves them (an edit made elsewhere shows within 0.5 s)."""
    engine = runtime.permissions
    assert engine is not None
    engine.user_file.parent.mkdir(parents=True, exist_ok=True)
    engine.user_file.write_text(text, encoding="utf-8")
    engine.refresh()


def audit_of(runtime: Runtime, cid: str) -> dict[str, Any]:
    return next(r for r in runtime.audit.query(tool=NAME) if r["call_id"] == cid)


async def test_the_same_allowed_call_is_ruled_once_and_audited_as_before(runtime, scope, rulings) -> None:
    always_allowed(runtime)
    host = ScriptedHost()
    for cid in ("c1", "c2", "c3"):
        envelope = await runtime.dispatcher.execute_tool(echo(cid), scope, host)
        assert envelope.ok and envelope.content == "hi"
    assert rulings == ["c1"] and host.requests == []
    # (no rule or grant names the tool: the verdict never read the arguments)
    assert (await runtime.dispatcher.execute_tool(echo("c4", "other"), scope, host)).ok
    assert rulings == ["c1"]
    await runtime.dispatcher.recorded("c4")
    rows = [audit_of(runtime, cid) for cid in ("c1", "c2", "c3", "c4")]
    assert {(r["decision"], r["provenance"]) for r in rows} == {("auto", "settings: always allow")}


async def test_an_ask_is_never_kept(runtime, scope, rulings) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    for cid in ("c1", "c2"):
        assert (await runtime.dispatcher.execute_tool(echo(cid), scope, host)).ok
    assert len(host.requests) == 2 and rulings == ["c1", "c2"]


async def test_always_allow_set_back_to_ask_between_two_calls_asks_the_second(runtime, scope) -> None:
    always_allowed(runtime)
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok
    runtime.settings.set_tool(NAME, policy=ToolPolicy.ASK)
    second = await runtime.dispatcher.execute_tool(echo("c2"), scope, host)
    assert not second.ok and [r.call_id for r in host.requests] == ["c2"]


async def test_the_tool_switched_off_between_two_calls_refuses_the_second(runtime, scope) -> None:
    always_allowed(runtime)
    host = ScriptedHost()
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok
    runtime.settings.set_tool(NAME, enabled=False)
    second = await runtime.dispatcher.execute_tool(echo("c2"), scope, host)
    assert not second.ok and second.error_kind is not None and second.error_kind.value == "disabled"


async def test_a_rule_written_between_two_calls_decides_the_second(runtime, scope) -> None:
    always_allowed(runtime)
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok
    write_user_rules(runtime, '[[rule]]\neffect = "deny"\ntool = "mcp:srv/echo"\n')
    second = await runtime.dispatcher.execute_tool(echo("c2"), scope, host)
    assert not second.ok and second.error_kind is not None and second.error_kind.value == "rejected"
    assert host.requests == [] and "rule deny" in audit_of(runtime, "c2")["provenance"]


async def test_a_rule_allow_is_kept_per_arguments(runtime, scope, rulings) -> None:
    write_user_rules(runtime, '[[rule]]\neffect = "allow"\ntool = "mcp:srv/echo"\npattern = \'text = "hi"\'\n')
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    assert (await runtime.dispatcher.execute_tool(echo("c1", "hi"), scope, host)).ok
    assert (await runtime.dispatcher.execute_tool(echo("c2", "hi"), scope, host)).ok
    other = await runtime.dispatcher.execute_tool(echo("c3", "bye"), scope, host)
    assert not other.ok and [r.call_id for r in host.requests] == ["c3"]
    assert rulings == ["c1", "c3"]
    await runtime.dispatcher.recorded("c3")
    first, again = audit_of(runtime, "c1"), audit_of(runtime, "c2")
    assert first["decision"] == again["decision"] == "auto"
    assert first["rule_source"] == again["rule_source"] and first["rule_source"].endswith("permissions.toml line 1")
    assert first["provenance"] == again["provenance"]


async def test_a_workspace_no_longer_trusted_between_two_calls_asks_the_second(runtime, scope, workspace) -> None:
    engine = runtime.permissions
    assert engine is not None
    committed = workspace_files(workspace)[0]
    committed.parent.mkdir()
    committed.write_text('[[rule]]\neffect = "allow"\ntool = "mcp:srv"\n', encoding="utf-8")
    engine.trust(engine.trust_snapshot(workspace))
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok and host.requests == []
    engine.untrust(workspace)
    second = await runtime.dispatcher.execute_tool(echo("c2"), scope, host)
    assert not second.ok and [r.call_id for r in host.requests] == ["c2"]


async def test_a_grant_revoked_between_two_calls_asks_the_second_and_each_use_is_counted(runtime, scope,
                                                                                        rulings) -> None:
    engine = runtime.permissions
    assert engine is not None
    grant = engine.grant(Suggestion(tool=NAME, pattern=None, label=NAME), GrantScope.MINUTES_15, call_id="c0",
                         client="bench")
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    for cid in ("c1", "c2"):
        assert (await runtime.dispatcher.execute_tool(echo(cid), scope, host)).ok
    assert rulings == ["c1", "c2"]  # a grant's allow is never kept: it expires, and counts its uses
    assert next(g for g in engine.active_grants() if g.id == grant.id).uses == 2
    engine.revoke(grant.id)
    third = await runtime.dispatcher.execute_tool(echo("c3"), scope, host)
    assert not third.ok and [r.call_id for r in host.requests] == ["c3"]


async def test_a_changed_tool_definition_between_two_calls_is_ruled_again(runtime, scope, rulings) -> None:
    always_allowed(runtime)
    host = ScriptedHost()
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok
    assert runtime.registry.register(OtherEcho(), source="mcp:srv", offloaded=True, replace=True).ok
    assert (await runtime.dispatcher.execute_tool(echo("c2"), scope, host)).ok
    assert rulings == ["c1", "c2"]


async def test_another_client_or_conversation_is_ruled_on_its_own(runtime, scope, rulings, workspace) -> None:
    always_allowed(runtime)
    host = ScriptedHost()
    assert (await runtime.dispatcher.execute_tool(echo("c1"), scope, host)).ok
    other = Scope(label="cursor", workspace_roots=(workspace,), client="cursor")
    assert (await runtime.dispatcher.execute_tool(echo("c2"), other, host)).ok
    assert rulings == ["c1", "c2"]
