"""MCP tools through the engine exactly like built-ins: execute_tool, policy, catalog.

Uses the real runtime wiring (``Runtime.attach_mcp`` reading mcp.json), the PyPI server
``mcp-server-time`` and the fault server (its log proves whether a call reached it).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from echo_desk.agent.dispatcher import new_call_id
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.mcp.config import config_path, parse_config
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import ErrorKind, RiskLevel
from tests.agent.fakes import WatchedDict
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import time_server_command, wait_until

pytestmark = pytest.mark.skipif(time_server_command() is None, reason="pip install mcp-server-time")


@pytest.fixture(params=["own-thread", "shared-loop"])
async def runtime(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Runtime]:
    log = tmp_path / "fault.log"
    time_cmd = time_server_command()
    assert time_cmd is not None
    document = {"mcpServers": {
        "time": {"command": time_cmd[0], "args": time_cmd[1:]},
        "f": fault_config(env={"FAULT_LOG": str(log)}, timeout=5).to_json(),
    }}
    config_path().write_text(json.dumps(document), encoding="utf-8")
    store = SettingsStore.in_memory()
    for name, cfg in parse_config(document).items():
        store.update(lambda s, n=name, c=cfg: s.mcp_approved.update({n: c.fingerprint()}))
    rt = Runtime.create(settings_store=store, data_dir=tmp_path, with_builtins=False, with_plugins=False)
    rt.fault_log = log  # type: ignore[attr-defined]
    await rt.attach_mcp(ScriptedHost(), own_thread=request.param == "own-thread")
    yield rt
    await rt.aclose()


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=new_call_id(), name=name, arguments=json.dumps(arguments))


def fault_calls(runtime: Runtime) -> list[str]:
    log: Path = runtime.fault_log  # type: ignore[attr-defined]
    return [line for line in log.read_text().splitlines() if line.startswith("echo")] if log.exists() else []


async def test_time_server_through_execute_tool(runtime: Runtime) -> None:
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    scope = Scope(label="chat")
    envelope = await runtime.dispatcher.execute_tool(
        call("time__convert_time", source_timezone="UTC", time="12:00", target_timezone="Asia/Tokyo"), scope, host
    )
    assert envelope.ok, envelope.error
    assert "21:00" in envelope.content
    request = host.requests[0]
    # The approval shows the full server (command line), the tool and the arguments; exec by default.
    assert request.source == "mcp:time" and request.risk is RiskLevel.EXEC
    assert any(t.kind == "server" and "mcp-server-time" in t.value for t in request.targets)
    assert request.arguments == {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    bad = await runtime.dispatcher.execute_tool(call("time__get_current_time", timezone=7), scope, host)
    assert not bad.ok and bad.error_kind is ErrorKind.VALIDATION  # checked before the server sees it


async def test_disabled_or_not_granted_or_denied_never_reaches_the_server(runtime: Runtime) -> None:
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    denied = await runtime.dispatcher.execute_tool(call("f__echo", text="denied"), Scope(label="chat"), host)
    assert denied.error_kind is ErrorKind.REJECTED
    narrow = Scope(label="sub-agent", granted_tools=frozenset({"time__get_current_time"}))
    refused = await runtime.dispatcher.execute_tool(call("f__echo", text="not granted"), narrow, host)
    assert refused.error_kind is ErrorKind.NOT_GRANTED
    read_only = await runtime.dispatcher.execute_tool(call("f__echo", text="ro"), Scope(label="ro", read_only=True), host)
    assert read_only.error_kind is ErrorKind.NOT_GRANTED  # exec tools never run in a read-only scope
    runtime.settings.set_tool("f__echo", enabled=False)
    disabled = await runtime.dispatcher.execute_tool(call("f__echo", text="disabled"), Scope(label="chat"), host)
    assert disabled.error_kind is ErrorKind.DISABLED
    assert fault_calls(runtime) == []
    runtime.settings.set_tool("f__echo", enabled=True)
    allowed = await runtime.dispatcher.execute_tool(
        call("f__echo", text="yes"), Scope(label="chat"), ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    )
    assert allowed.ok and fault_calls(runtime) == ["echo yes"]


async def test_lowered_risk_applies_but_annotations_alone_do_not(runtime: Runtime) -> None:
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    runtime.settings.set_tool("time__get_current_time", risk_override=RiskLevel.READ)
    ok = await runtime.dispatcher.execute_tool(call("time__get_current_time", timezone="UTC"), Scope(), host)
    assert ok.ok and host.requests == []  # read risk: no approval needed
    # mcp-server-time marks its tools readOnlyHint; without an override they still ask.
    status = runtime.mcp.status("time")  # type: ignore[union-attr]
    assert next(t for t in status.tools if t.original_name == "convert_time").annotations.get("readOnlyHint")
    asked = await runtime.dispatcher.execute_tool(
        call("time__convert_time", source_timezone="UTC", time="01:00", target_timezone="UTC"), Scope(), host
    )
    assert asked.error_kind is ErrorKind.REJECTED and len(host.requests) == 1


async def test_catalog_hides_a_changed_tool_until_reapproved(runtime: Runtime) -> None:
    names = {d.name for d in runtime.schema_factory.definitions(Scope())}
    assert {"time__get_current_time", "time__convert_time", "f__echo"} <= names
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    watched = WatchedDict("f__echo")
    watched.update(runtime.registry._tools)
    runtime.registry._tools = watched  # type: ignore[assignment]
    await runtime.dispatcher.execute_tool(call("f__mutate"), Scope(), host)
    manager = runtime.mcp
    assert manager is not None
    await wait_until(lambda: not runtime.registry.get("f__echo").tool.is_ready(), 10, "the changed tool to block")
    assert watched.gone == 0  # replaced in one step: never 'unknown tool' to a call meanwhile
    assert "f__echo" not in {d.name for d in runtime.schema_factory.definitions(Scope())}
    blocked = await runtime.dispatcher.execute_tool(call("f__echo", text="x"), Scope(), host)
    assert not blocked.ok and "changed" in blocked.error
    await manager.approve_tool_change("f__echo")
    assert "f__echo" in {d.name for d in runtime.schema_factory.definitions(Scope())}


async def test_an_always_allowed_tool_whose_description_changed_between_two_calls_is_refused(runtime: Runtime) -> None:
    # The first call's allow is kept for the same call again (``pipeline.kept_verdicts``): the
    # changed definition must still stop the second one before anything reaches the server.
    runtime.settings.set_tool("f__echo", policy=ToolPolicy.ALWAYS)
    host, scope = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE), Scope(label="chat")
    first = await runtime.dispatcher.execute_tool(call("f__echo", text="same"), scope, host)
    assert first.ok and host.requests == []
    assert (await runtime.dispatcher.execute_tool(call("f__mutate"), scope, host)).ok
    await wait_until(lambda: not runtime.registry.get("f__echo").tool.is_ready(), 10, "the changed tool to block")
    second = await runtime.dispatcher.execute_tool(call("f__echo", text="same"), scope, host)
    assert not second.ok and "changed" in second.error
    assert fault_calls(runtime) == ["echo same"]
