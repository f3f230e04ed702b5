"""Every tool declares what kind of step it is (``Tool.role``), and the role reaches what a provider
is given; an MCP tool's role comes from its annotations and never changes its risk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.delegate import DelegateTool
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.schema import definition_of
from echo_desk.agent.sources import BUILTIN, PLUGIN
from echo_desk.runtime import Runtime
from echo_desk.tools import (
    CHANGING_ROLES,
    LOOKING_ROLES,
    BaseTool,
    RiskLevel,
    Tool,
    ToolRole,
    role_from_annotations,
)


def _builtins(runtime: Runtime) -> list[Tool]:
    tools = [e.tool for e in runtime.registry.entries() if e.source == BUILTIN]
    assert len(tools) > 10
    return tools


def test_every_built_in_declares_a_role(runtime: Runtime) -> None:
    undeclared = [t.name for t in _builtins(runtime) if t.role is ToolRole.UNKNOWN]
    assert undeclared == []
    assert DelegateTool.role is ToolRole.DELEGATE


def test_a_built_in_s_role_agrees_with_its_risk(runtime: Runtime) -> None:
    for tool in _builtins(runtime):
        if tool.role in LOOKING_ROLES:
            assert tool.risk_level is RiskLevel.READ, tool.name
        if tool.role in CHANGING_ROLES | {ToolRole.RUN}:
            assert tool.risk_level is not RiskLevel.READ, tool.name


def test_each_kind_of_change_has_a_built_in(runtime: Runtime) -> None:
    roles = {t.role for t in _builtins(runtime)}
    assert set(LOOKING_ROLES) | set(CHANGING_ROLES) | {ToolRole.RUN} <= roles


class _Lookup(BaseTool):
    name = "lookup_weather"
    description = "Look up the weather."
    input_schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    role = ToolRole.LOOK

    async def run(self, **kwargs: Any) -> str:
        return "sunny"


class _Silent(BaseTool):
    name = "silent_tool"
    description = "Declares nothing."

    async def run(self, **kwargs: Any) -> str:
        return ""


def test_a_plugin_declares_its_own_role_and_one_that_does_not_is_unknown() -> None:
    registry = ToolRegistry()
    assert registry.register(_Lookup(), PLUGIN).ok and registry.register(_Silent(), PLUGIN).ok
    lookup, silent = registry.get("lookup_weather"), registry.get("silent_tool")
    assert lookup is not None and silent is not None
    assert definition_of(lookup).role is ToolRole.LOOK
    assert definition_of(silent).role is ToolRole.UNKNOWN


def test_the_weather_example_plugin_declares_that_it_looks() -> None:
    import importlib.util

    # This checkout's file itself (an installed copy of the example may be another checkout's).
    path = Path(__file__).resolve().parents[2] / "examples" / "weather-plugin" / "src" / "echo_desk_weather" / "tool.py"
    spec = importlib.util.spec_from_file_location("weather_tool_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.WeatherTool.role is ToolRole.LOOK


@pytest.mark.parametrize(("annotations", "role"), [
    ({"readOnlyHint": True}, ToolRole.LOOK),
    ({"readOnlyHint": True, "destructiveHint": True}, ToolRole.LOOK),  # read-only wins (the spec)
    ({"readOnlyHint": False}, ToolRole.CHANGE),  # destructive unless it says otherwise (the spec's default)
    ({"readOnlyHint": False, "destructiveHint": False}, ToolRole.CREATE),  # only adds
    ({"destructiveHint": True}, ToolRole.CHANGE),
    ({"destructiveHint": False}, ToolRole.CREATE),
    ({"idempotentHint": True}, ToolRole.UNKNOWN),
    ({"title": "Something"}, ToolRole.UNKNOWN),
    ({}, ToolRole.UNKNOWN),
])
def test_an_mcp_tool_s_role_comes_from_its_annotations(annotations: dict[str, Any], role: ToolRole) -> None:
    assert role_from_annotations(annotations) is role


def test_an_mcp_tool_gets_its_role_and_keeps_exec_risk() -> None:
    from echo_desk.mcp.tool import make_tool

    def made(annotations: dict[str, Any]) -> Tool:
        return make_tool(None, registry_name="srv__t", server="srv", original_name="t",  # type: ignore[arg-type]
                         description="d", parameters={"type": "object", "properties": {}}, title="t",
                         annotations=annotations, definition_hash="h", hidden_characters=(), risk=RiskLevel.EXEC,
                         timeout=5.0)

    reader, unknown = made({"readOnlyHint": True}), made({})
    assert reader.role is ToolRole.LOOK and reader.risk_level is RiskLevel.EXEC
    assert unknown.role is ToolRole.UNKNOWN
