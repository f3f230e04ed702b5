"""A small model is offered only the parameters a tool declares basic (``Tool.basic_parameters``);
a larger one every parameter. The registry refuses a declaration a small model could not live with."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.schema import definition_of
from echo_desk.agent.sources import BUILTIN, PLUGIN
from echo_desk.builtins.search.search_files import SearchFiles
from echo_desk.providers.local.intent import Intent, StatedIntent
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel
from echo_desk.providers.local.steering import next_turn
from echo_desk.tools import Tool, ToolExecutionContext, ToolResult, ToolRole


def _definition(parameters: dict[str, Any], basic: tuple[str, ...] | None) -> ToolDefinition:
    return ToolDefinition(name="t", description="t.", parameters=parameters, basic_parameters=basic)


def test_only_the_basic_parameters_are_kept_in_their_order_and_required_follows() -> None:
    full = _definition({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "integer"}}}, ("c", "a"))
    basic = full.basic()
    assert list(basic.parameters["properties"]) == ["a", "c"]  # the schema's order, not the declaration's
    assert basic.parameters["required"] == ["a"] and basic.parameters["type"] == "object"
    assert full.parameters["properties"].keys() == {"a", "b", "c"}  # the definition itself is unchanged
    undeclared = _definition({"type": "object", "properties": {"x": {}}}, None)
    assert undeclared.basic() is undeclared


def test_a_small_model_is_offered_search_files_without_its_name_glob() -> None:
    definition = definition_of(RegisteredTool(SearchFiles(), BUILTIN))
    assert {"regex", "glob", "path"} <= definition.parameters["properties"].keys()
    small = LocalModel(Path("model.gguf"), get_profile("qwen2.5-coder-tools"))
    assert small.profile.basic_parameters_only
    [offered] = small.offered([definition])
    assert list(offered.parameters["properties"]) == ["regex", "path"]
    large = LocalModel(Path("model.gguf"), dataclasses.replace(small.profile, basic_parameters_only=False))
    assert large.offered([definition]) == [definition]


class _Declares(Tool):
    name = "declares"
    description = "A tool with one required and one optional parameter."
    parameters = {"type": "object", "required": ["text"],
                  "properties": {"text": {"type": "string"}, "shout": {"type": "boolean"}}}

    async def execute(self, params: Any, ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(str(params["text"]))


@pytest.mark.parametrize(("basic", "refused_for"), [
    (("text",), ""),
    (("text", "loud"), "the schema lacks: loud"),
    (("shout",), "every required parameter: text"),
])
def test_the_registry_checks_a_declaration_of_basic_parameters(basic: tuple[str, ...], refused_for: str) -> None:
    tool = type("Declared", (_Declares,), {"basic_parameters": basic})()
    result = ToolRegistry().register(tool, PLUGIN)
    assert result.ok is (not refused_for)
    assert refused_for in result.message


@pytest.mark.parametrize(("declared", "refused_for"), [
    ({"query_argument": "text"}, ""),
    ({"query_argument": "shout"}, "must be a string parameter"),
    ({"query_argument": "nope"}, "must be a string parameter"),
    ({"query_argument": "text", "basic_parameters": ("text",)}, ""),
    ({"query_argument": "text", "basic_parameters": ("shout",)}, "must keep the query_argument"),
])
def test_the_registry_checks_a_declared_query_argument(declared: dict[str, Any], refused_for: str) -> None:
    tool = type("Declared", (_Declares,), {"role": ToolRole.SEARCH, **declared})()
    result = ToolRegistry().register(tool, PLUGIN)
    assert result.ok is (not refused_for) and refused_for in result.message


def test_search_files_declares_its_regex_as_the_query() -> None:
    definition = definition_of(RegisteredTool(SearchFiles(), BUILTIN))
    assert definition.query_argument == "regex" and definition.query_is_regex
    request = [ChatMessage(role="user", content="Welche Datei definiert parse_date?")]
    turn = next_turn(request, [definition.basic()], stated=StatedIntent(Intent.SEARCH, "parse_date"))
    assert turn.tools[0].parameters["properties"]["regex"]["enum"] == ["parse_date"]
