"""A client's granted tools follow its profile and the tools there are, and are worked out only
when one of them changed (not on every call: the list is linear in the number of tools)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.gateway import session as session_module
from echo_desk.gateway.session import ClientSession
from echo_desk.gateway.view import set_offered
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import Tool, ToolExecutionContext, ToolResult
from tests.gateway.conftest import allow_builtins


class Shout(Tool):
    name = "shout"
    description = "Says its word back in capitals."
    parameters = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}

    async def execute(self, arguments: dict[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(str(arguments["word"]).upper())


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    store = SettingsStore.in_dir(tmp_path / "config")
    allow_builtins(store, "zed")
    return Runtime.create(settings_store=store, data_dir=tmp_path / "data", with_plugins=False)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time a session works its grant out, the client's name is appended."""
    worked_out: list[str] = []
    real = session_module.granted

    def counting(registry: Any, settings: Any, client: str) -> frozenset[str]:
        worked_out.append(client)
        return real(registry, settings, client)

    monkeypatch.setattr(session_module, "granted", counting)
    return worked_out


async def test_the_grant_is_worked_out_once_while_nothing_changes(runtime: Runtime, counted: list[str]) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    for _ in range(3):
        result = await session.call("echo_text", {"text": "hi"})
        assert not result.get("isError"), result
    assert counted == ["zed"]


async def test_hiding_a_tool_is_seen_by_the_next_call(runtime: Runtime, counted: list[str]) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    assert not (await session.call("echo_text", {"text": "hi"})).get("isError")
    set_offered(runtime.settings, "zed", "echo_text", False)
    refused = await session.call("echo_text", {"text": "hi"})
    assert refused.get("isError") and "was not granted" in str(refused["content"])
    assert counted == ["zed", "zed"]


async def test_a_tool_registered_later_is_granted_to_the_next_call(runtime: Runtime, counted: list[str]) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    before = await session.call("shout", {"word": "hi"})
    assert before.get("isError")  # not there yet
    assert runtime.registry.register(Shout(), "plugin").ok
    after = await session.call("shout", {"word": "hi"})
    assert not after.get("isError") and "HI" in str(after["content"])
    assert runtime.registry.unregister("shout")
    gone = await session.call("shout", {"word": "hi"})
    assert gone.get("isError")
    assert counted == ["zed", "zed", "zed"]


async def test_a_tool_hidden_from_the_client_while_its_dialog_is_open_does_not_run(
        runtime: Runtime, tmp_path: Path) -> None:
    """The person takes the tool away from this client in the catalog while reading the
    client's dialog: the Allow is for a tool the client no longer has, so nothing runs."""
    workspace = tmp_path / "ws"
    workspace.mkdir()

    class HidesItMeanwhile(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            set_offered(runtime.settings, "zed", "write_file", False)
            return await super().request_approval(request)

    person = HidesItMeanwhile(choice=ApprovalChoice.ALLOW_ONCE)
    session = ClientSession(runtime, person, "zed", workspace=workspace)
    refused = await session.call("write_file", {"path": "a.txt", "content": "x"})
    assert len(person.requests) == 1
    assert refused.get("isError") and "was not granted" in str(refused["content"]), refused
    assert not (workspace / "a.txt").exists()
