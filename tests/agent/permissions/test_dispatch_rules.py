"""Rules and grants in ``execute_tool``: the real runtime, real run_command, real audit log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import GrantScope
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "echo **"
reason = "printing is harmless"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/**"
"""


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    config = tmp_path / "config"
    config.mkdir()
    (config / "permissions.toml").write_text(RULES)
    rt = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=tmp_path / "data", with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def scope(tmp_path: Path) -> Scope:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Scope(label="chat", workspace_roots=(ws,))


def run(cid: str, command: str) -> ToolCall:
    return ToolCall(id=cid, name="run_command", arguments=json.dumps({"command": command}))


def audit_of(runtime: Runtime, cid: str) -> dict:
    return next(r for r in runtime.audit.query(tool="run_command") if r["call_id"] == cid)


async def test_an_allow_rule_runs_without_asking_and_the_audit_names_file_and_line(runtime, scope) -> None:
    host = ScriptedHost()
    envelope = await runtime.dispatcher.execute_tool(run("c1", "echo hi | echo there"), scope, host)
    assert envelope.ok and host.requests == []
    record = audit_of(runtime, "c1")
    assert record["decision"] == "auto"
    assert record["rule_source"].endswith("permissions.toml line 2")
    assert 'rule allow shell "echo **"' in record["provenance"]


async def test_the_floor_refuses_without_asking_and_is_audited(runtime, scope) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    envelope = await runtime.dispatcher.execute_tool(run("c2", "echo hi && rm -rf ~"), scope, host)
    assert not envelope.ok and envelope.error_kind is not None and envelope.error_kind.value == "rejected"
    assert host.requests == []
    assert audit_of(runtime, "c2")["rule_source"] == "built-in floor rule"


async def test_the_dialog_gets_the_parts_and_suggestions_and_a_chosen_grant_applies_next_call(runtime, scope) -> None:
    class Chooser(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            self.requests.append(request)
            assert request.rules is not None
            (suggestion,) = request.rules.suggestions
            return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE,
                                    binding=request.binding, suggestion=suggestion,
                                    grant_scope=GrantScope.MINUTES_15)

    host = Chooser()
    first = await runtime.dispatcher.execute_tool(run("c3", "echo a; true"), scope, host)
    assert first.ok and len(host.requests) == 1
    request = host.requests[0]
    assert request.rules is not None
    assert [p.effect.value if p.effect else None for p in request.rules.parts] == ["allow", None]
    assert request.rules.suggestions[0].pattern == "true **"
    (grant,) = runtime.permissions.active_grants()  # type: ignore[union-attr]
    assert grant.created_by_call == "c3" and grant.pattern == "true **"
    second = await runtime.dispatcher.execute_tool(run("c4", "true && echo b"), scope, host)
    assert second.ok and len(host.requests) == 1
    assert audit_of(runtime, "c4")["grant_id"] == grant.id


async def test_allow_for_this_conversation_is_a_visible_revocable_grant(runtime, scope) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_CONVERSATION)
    assert (await runtime.dispatcher.execute_tool(run("c5", "true"), scope, host)).ok
    assert (await runtime.dispatcher.execute_tool(run("c6", "true"), scope, host)).ok
    assert len(host.requests) == 1
    (grant,) = runtime.permissions.active_grants()  # type: ignore[union-attr]
    assert (grant.tool, grant.pattern, grant.scope, grant.conversation_id) == (
        "run_command", None, GrantScope.CONVERSATION, scope.conversation_id)
    assert scope.session_grants == set()  # nothing invisible any more
    # Never for an opaque command…
    assert (await runtime.dispatcher.execute_tool(run("c7", "eval true"), scope, host)).ok
    assert len(host.requests) == 2
    # …and revoking applies to the very next call.
    runtime.permissions.revoke(grant.id)  # type: ignore[union-attr]
    await runtime.dispatcher.execute_tool(run("c8", "true"), scope, host)
    assert len(host.requests) == 3


async def test_a_protected_target_still_asks_and_a_disabled_tool_stays_disabled(runtime, scope) -> None:
    ws = scope.workspace_roots[0]
    (ws / ".git").mkdir()
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    write = ToolCall(id="c9", name="write_file", arguments=json.dumps({"path": ".git/config", "content": "x"}))
    envelope = await runtime.dispatcher.execute_tool(write, scope, host)
    assert len(host.requests) == 1 and not envelope.ok
    plain = ToolCall(id="c10", name="write_file", arguments=json.dumps({"path": "notes.txt", "content": "x"}))
    assert (await runtime.dispatcher.execute_tool(plain, scope, host)).ok and len(host.requests) == 1
    runtime.settings.set_tool("run_command", enabled=False)
    refused = await runtime.dispatcher.execute_tool(run("c11", "echo hi"), scope, host)
    assert refused.error_kind is not None and refused.error_kind.value == "disabled"


async def test_a_failure_inside_the_rules_asks_instead_of_running_or_crashing(runtime, scope, monkeypatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(runtime.permissions, "evaluate", broken)
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    envelope = await runtime.dispatcher.execute_tool(run("c12", "echo hi"), scope, host)
    assert len(host.requests) == 1 and not envelope.ok
    shown = host.requests[0].rules
    assert shown is not None and shown.provenance is not None
    assert "the permission rules failed" in shown.provenance.detail


async def test_a_tool_no_rule_names_still_gets_the_rules_view_in_its_dialog(tmp_path: Path, scope) -> None:
    # The dispatcher skips the rules for a tool no rule names (≤ 10 µs per call), but when the
    # person is asked anyway the dialog needs the narrow choices: here, this server's tool.
    from echo_desk.tools import BaseTool, RiskLevel

    class Stamp(BaseTool):
        name = "demo__stamp"
        description = "Stamp a label."
        risk_level = RiskLevel.WRITE
        input_schema = {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}

        async def run(self, label: str) -> str:
            return label

    config = tmp_path / "config-empty"
    config.mkdir()
    rt = Runtime.create(settings_store=SettingsStore.in_dir(config), data_dir=tmp_path / "data2", with_plugins=False)
    try:
        rt.registry.register(Stamp(), source="mcp:demo")
        host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
        envelope = await rt.dispatcher.execute_tool(
            ToolCall(id="s1", name="demo__stamp", arguments='{"label": "x"}'), scope, host)
        assert envelope.ok
        (request,) = host.requests
        assert request.rules is not None and request.rules.effect is None  # no rule decided
        assert [s.tool for s in request.rules.suggestions] == ["mcp:demo/demo__stamp"]  # no adapter: its registered name
    finally:
        rt.close()


async def test_an_approved_call_runs_when_its_grant_cannot_be_stored(runtime, scope, monkeypatch) -> None:
    """A full grants database: the person's yes stands for this call; the next one asks again."""
    import sqlite3

    def full(*_args: object, **_kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(runtime.permissions, "grant", full)
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_CONVERSATION)
    assert (await runtime.dispatcher.execute_tool(run("g1", "true"), scope, host)).ok
    assert (await runtime.dispatcher.execute_tool(run("g2", "true"), scope, host)).ok
    assert len(host.requests) == 2
    assert "grant not stored: database or disk is full" in audit_of(runtime, "g1")["provenance"]


@pytest.mark.parametrize("lasting", [GrantScope.MINUTES_15, GrantScope.WORKSPACE, GrantScope.ALWAYS])
async def test_a_grant_made_in_a_clients_dialog_covers_that_client_only(runtime, scope, lasting) -> None:
    # The dialog was headed "Cursor, through MCP, wants…": what the person allowed there is
    # Cursor's. Another client, and Echo Desk's own chat, are still asked.
    class Chooser(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            self.requests.append(request)
            assert request.rules is not None
            return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE,
                                    binding=request.binding, suggestion=request.rules.suggestions[0],
                                    grant_scope=lasting)

    roots = scope.workspace_roots
    cursor, other = Scope(label="Cursor", client="cursor", workspace_roots=roots), \
        Scope(label="Zed", client="zed", workspace_roots=roots)
    host = Chooser()
    assert (await runtime.dispatcher.execute_tool(run("k1", "true"), cursor, host)).ok
    assert len(host.requests) == 1
    # Cursor again, in a later connection: the grant is its own.
    again = Scope(label="Cursor", client="cursor", workspace_roots=roots)
    assert (await runtime.dispatcher.execute_tool(run("k2", "true"), again, host)).ok
    assert len(host.requests) == 1
    for n, (caller, asked) in enumerate(((other, 2), (scope, 3))):
        assert (await runtime.dispatcher.execute_tool(run(f"k3{n}", "true"), caller, host)).ok
        assert len(host.requests) == asked, f"{caller.label} ran under Cursor's grant"
