"""The quick output check (``echo_desk.mcp.output_check``) only ever stands in for the SDK's check
where the SDK's would find nothing wrong: every result it accepts, the SDK's own
``validate_tool_result`` accepts too, under the schema the session listed last; a changed schema
is compiled again; a schema the SDK refuses, or one the quick check does not model, is the SDK's."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from echo_desk.mcp.output_check import QuickOutputCheck


class ListedSession:
    """The SDK's own checking code on a session's cache of listed output schemas."""

    validate_tool_result = ClientSession.validate_tool_result
    _output_schema_validator = ClientSession._output_schema_validator

    def __init__(self, schemas: dict[str, Any]) -> None:
        self._tool_output_schemas = schemas
        self._tool_output_validators: dict[str, Any] = {}

    async def list_tools(self) -> None:
        raise AssertionError("every tool here was listed")


def result(structured: Any = None, *, with_structured: bool = True) -> types.CallToolResult:
    raw: dict[str, Any] = {"content": []}
    if with_structured:
        raw["structuredContent"] = structured
    return types.CallToolResult.model_validate(raw, by_name=False)


async def sdk_accepts(session: ListedSession, name: str, answer: types.CallToolResult) -> bool:
    try:
        await session.validate_tool_result(name, answer)
    except RuntimeError:
        return False
    return True


TIME = {"type": "object", "properties": {"timezone": {"type": "string"}, "datetime": {"type": "string"},
                                         "is_dst": {"type": "boolean"}},
        "required": ["timezone", "datetime", "is_dst"]}
GOOD_TIME = {"timezone": "UTC", "datetime": "2026-12-06T13:00:00+00:00", "is_dst": False}

#: (schema, structured content, whether the quick check must accept it)
CASES: list[tuple[dict[str, Any], Any, bool]] = [
    (TIME, GOOD_TIME, True),
    (TIME, {**GOOD_TIME, "extra": [1, 2]}, True),
    (TIME, {"timezone": "UTC", "datetime": "now"}, False),  # a required field missing
    (TIME, {**GOOD_TIME, "is_dst": 0}, False),  # 0 is no boolean
    (TIME, None, False),
    (TIME, [GOOD_TIME], False),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 1.0}, False),  # valid: left to the SDK
    # Not a valid schema (the names in "required" must be unique): the SDK refuses it on every call.
    ({"type": "object", "required": ["a", "a"]}, {"a": 1}, False),
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, {"a": "x"}, False),
    # Another draft, where a keyword means something else: draft-04's boolean exclusiveMinimum,
    # draft-07's list of items.
    ({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
      "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}, {"n": 0}, False),
    ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}]}, [1], False),
    ({"$defs": {"s": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}}, {"a": 1}, False),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}, {"a": "not a date"}, True),
    ({"type": "object", "additionalProperties": False, "properties": {"a": {"enum": ["x", "y"]}}}, {"a": "x"}, True),
    ({"type": "object", "additionalProperties": False, "properties": {"a": {"enum": ["x", "y"]}}}, {"b": 1}, False),
]


@pytest.mark.parametrize(("schema", "structured", "quick"), CASES)
async def test_what_the_quick_check_accepts_the_sdk_accepts(schema: dict[str, Any], structured: Any, quick: bool) -> None:
    session = ListedSession({"tool": schema})
    answer = result(structured)
    fits = QuickOutputCheck().surely_fits(session, "tool", answer)
    assert fits is quick
    if fits:
        assert await sdk_accepts(session, "tool", answer)


async def test_a_result_without_structured_content_or_a_tool_not_listed_is_the_sdks() -> None:
    check = QuickOutputCheck()
    session = ListedSession({"tool": TIME, "plain": None})
    assert not check.surely_fits(session, "tool", result(with_structured=False))
    assert not await sdk_accepts(session, "tool", result(with_structured=False))
    assert not check.surely_fits(session, "unlisted", result(GOOD_TIME))  # the SDK lists the tools first
    assert not check.surely_fits(session, "plain", result(GOOD_TIME))  # no schema: nothing to check
    assert not check.surely_fits(object(), "tool", result(GOOD_TIME))  # another SDK: no listed schemas to read


async def test_a_tool_listed_again_with_another_schema_is_checked_against_the_new_one() -> None:
    check = QuickOutputCheck()
    session = ListedSession({"tool": {"type": "object", "properties": {"v": {"type": "integer"}}}})
    assert check.surely_fits(session, "tool", result({"v": 1}))
    # The server changed the tool: the session's next listing holds the new schema.
    session._tool_output_schemas = {"tool": {"type": "object", "properties": {"v": {"type": "string"}}}}
    session._tool_output_validators.clear()
    assert not check.surely_fits(session, "tool", result({"v": 1}))
    assert not await sdk_accepts(session, "tool", result({"v": 1}))
    assert check.surely_fits(session, "tool", result({"v": "one"}))
