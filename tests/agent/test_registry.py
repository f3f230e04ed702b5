"""Registration checks the contract; plugins come from entry points."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib import metadata
from typing import Any

import pytest

from echo_desk.agent.registry import ToolRegistry
from echo_desk.tools import BaseTool, Tool, ToolExecutionContext, ToolResult
from tests.agent.fakes import Echo, WatchedDict, WhoAmI


class SyncTool(Tool):
    name = "sync_tool"
    description = "Blocking."

    def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:  # type: ignore[override]
        return ToolResult.ok("x")


class SyncBase(BaseTool):
    name = "sync_base"
    description = "Blocking run."

    def run(self, **kwargs: Any) -> str:  # type: ignore[override]
        return "x"


def named(name: str, schema: dict | None = None, **attrs: Any) -> Tool:
    cls = type("T", (Echo,), {"name": name, **({"parameters": schema} if schema is not None else {}), **attrs})
    return cls()


def test_duplicate_is_dropped_with_a_warning_and_reported(caplog: pytest.LogCaptureFixture) -> None:
    reg = ToolRegistry()
    assert reg.register(Echo()).ok
    with caplog.at_level(logging.WARNING):
        result = reg.register(Echo(), source="plugin")
    assert not result.ok and "already registered (from builtin)" in result.message
    assert "already registered" in caplog.text
    assert reg.get("echo").source == "builtin"


def test_a_replaced_tool_is_never_absent() -> None:
    """An MCP server's changed tool takes its old place in one step: a call looked up from
    another thread meanwhile finds the old tool or the new one (seen flaking as 'unknown tool')."""
    reg = ToolRegistry()
    reg._tools = WatchedDict("echo")  # type: ignore[assignment]
    old, new = Echo(), named("echo", description="Echo, changed.")
    assert reg.register(old, source="mcp:f").ok
    assert not reg.register(new, source="mcp:f").ok  # without replace: refused, the old one stays
    result = reg.register(new, source="mcp:f", replace=True)
    assert result.ok and reg.get("echo").tool is new and reg._tools.gone == 0  # type: ignore[attr-defined]
    assert not reg.register(named("echo", schema={"type": "string"}), replace=True).ok  # still checked
    assert reg.get("echo").tool is new


@pytest.mark.parametrize("name", ["load_skill", "unload_skill"])
def test_reserved_names_are_refused(name: str) -> None:
    result = ToolRegistry().register(named(name))
    assert not result.ok and "reserved" in result.message


@pytest.mark.parametrize("name", ["has space", "x" * 65, "", "dot.ted", "1starts_with_digit", "ünï", "trailing_newline\n"])
def test_names_providers_reject_are_refused(name: str) -> None:
    assert not ToolRegistry().register(named(name)).ok


@pytest.mark.parametrize("tool", [SyncTool(), SyncBase()])
def test_synchronous_handlers_are_refused_with_advice(tool: Tool) -> None:
    result = ToolRegistry().register(tool)
    assert not result.ok
    assert "async def" in result.message and "asyncio.to_thread" in result.message


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},
        {"type": "object", "properties": {"a": {"type": "no-such-type"}}},
        {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(1000)}},
    ],
)
def test_invalid_or_oversized_schemas_are_refused(schema: dict) -> None:
    result = ToolRegistry().register(named("bad", schema))
    assert not result.ok and "invalid parameters schema" in result.message


def test_hidden_parameter_declared_in_schema_is_refused() -> None:
    schema = {"type": "object", "properties": {"auth_token": {"type": "string"}}}
    result = ToolRegistry().register(named("leaky", schema))
    assert not result.ok and "auth_token" in result.message


def test_light_style_tool_registers_with_its_input_schema() -> None:
    reg = ToolRegistry()
    assert reg.register(WhoAmI()).ok
    assert reg.get("whoami").tool.parameters["properties"] == {"greeting": {"type": "string"}}


def test_plugins_load_from_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    good = metadata.EntryPoint(name="good", value="tests.agent.fakes:Echo", group="echo_desk.tools")
    broken = metadata.EntryPoint(name="broken", value="tests.agent.nowhere:Missing", group="echo_desk.tools")
    monkeypatch.setattr(metadata, "entry_points", lambda group: [good, broken] if group == "echo_desk.tools" else [])
    reg = ToolRegistry()
    results = reg.load_plugins()
    assert [r.ok for r in results] == [True, False]
    assert reg.get("echo").source == "plugin"
    assert "broken" in results[1].message
