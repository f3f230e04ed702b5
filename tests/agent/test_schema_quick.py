"""The quick acceptance check never accepts what jsonschema rejects, so the model reads exactly
the same verdicts and messages as from jsonschema alone: over the built-in tools' schemas, MCP
style schemas, random schemas of the modelled keywords, and hostile arguments."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from echo_desk.agent.schema_checks import compiled_validator, describe_validation_error, validation_errors
from echo_desk.agent.schema_quick import compile_quick
from echo_desk.builtins import builtin_tools

BUILTIN_SCHEMAS = {tool.name: tool.parameters for tool in builtin_tools()}

#: As MCP servers send them: FastMCP (titles) and zod-to-json-schema (a draft-07 ``$schema``).
MCP_SCHEMAS: dict[str, dict[str, Any]] = {
    "fastmcp": {"properties": {"text": {"title": "Text", "type": "string"}}, "required": ["text"],
                "title": "echoArguments", "type": "object"},
    "zod": {"type": "object", "properties": {"message": {"type": "string", "description": "Message to echo"}},
            "required": ["message"], "additionalProperties": False,
            "$schema": "http://json-schema.org/draft-07/schema#"},
    "time": {"type": "object", "properties": {"timezone": {"type": "string", "description": "IANA name"}},
             "required": ["timezone"]},
}

HAND_MADE: dict[str, dict[str, Any]] = {
    "numbers": {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
        "either": {"type": ["integer", "null"]},
    }},
    "choices": {"type": "object", "properties": {
        "mode": {"enum": ["a", "b", 1, True, None]},
        "fixed": {"const": 0},
        "flag": {"type": "boolean"},
    }, "additionalProperties": False},
    "shapes": {"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 4, "format": "email"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "maxItems": 2},
        "inner": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"],
                  "additionalProperties": {"type": "integer"}},
    }, "required": ["name"]},
}

ALL_SCHEMAS = {**{f"builtin:{k}": v for k, v in BUILTIN_SCHEMAS.items()},
               **{f"mcp:{k}": v for k, v in MCP_SCHEMAS.items()}, **HAND_MADE}

HOSTILE_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 0.5, -0.0, 10**30, -(10**30), math.nan, math.inf, -math.inf,
    "", "a", "ab", "abc", "abcd", "abcde", "Ab", "😀😀", "é" * 3, "\u0301" * 4, "x" * 201, "x" * 5000,
    [], ["a"], ["a", "b"], ["a", "b", "c"], [1], ["abcd"], [None], {}, {"k": "v"}, {"k": 1}, {"k": "v", "x": 1},
    {"k": "v", "x": "y"}, ("a",),
]


def _messages(validator: Draft202012Validator, instance: Any) -> list[str]:
    return [describe_validation_error(e)
            for e in sorted(validator.iter_errors(instance), key=lambda e: list(e.path))]


def _assert_same(schema: dict[str, Any], instance: Any) -> None:
    validator = Draft202012Validator(schema)
    quick = compile_quick(schema)
    if quick is not None and quick(instance):
        assert validator.is_valid(instance), (schema, instance)
    # What the dispatcher reports is what its cached validator alone reported, word for word
    # (the cache's validator: equal schemas share one, which orders errors by its key order).
    assert [describe_validation_error(e) for e in validation_errors(schema, instance)] == \
        _messages(compiled_validator(schema), instance), (schema, instance)


def _argument_sets(schema: dict[str, Any]) -> list[Any]:
    """Each hostile value under each declared name (and two names no schema declares)."""
    names = [*(schema.get("properties") or {}), "unexpected", "user_id"]
    out: list[Any] = [{}, {"": 1}]
    for name in names:
        for value in HOSTILE_VALUES:
            out.append({name: value})
    return out


@pytest.mark.parametrize("name", sorted(ALL_SCHEMAS))
def test_hostile_arguments_get_the_validators_verdict_and_messages(name: str) -> None:
    schema = ALL_SCHEMAS[name]
    for instance in _argument_sets(schema) + HOSTILE_VALUES:
        _assert_same(schema, instance)


def test_the_built_in_and_mcp_schemas_have_a_quick_check_that_accepts_good_calls() -> None:
    # Otherwise the quick check would be dead weight on the calls that matter.
    missing = [name for name, schema in ALL_SCHEMAS.items() if compile_quick(schema) is None]
    assert len(missing) <= 2, missing  # a built-in using "not" (move_path) may fall back
    for schema, good in (
        (MCP_SCHEMAS["fastmcp"], {"text": "hi"}),
        (MCP_SCHEMAS["zod"], {"message": "hi"}),
        (MCP_SCHEMAS["time"], {"timezone": "UTC"}),
        (HAND_MADE["numbers"], {"n": 3, "x": 1, "either": None}),
        (HAND_MADE["choices"], {"mode": True, "fixed": 0, "flag": False}),
        (HAND_MADE["shapes"], {"name": "abc", "tags": ["x"], "inner": {"k": "v", "z": 2}}),
    ):
        quick = compile_quick(schema)
        assert quick is not None and quick(good)


@pytest.mark.parametrize(("schema", "instance"), [
    ({"type": "integer"}, 1.0),  # valid to jsonschema, left to it
    ({"type": "integer"}, True),
    ({"enum": [1]}, True),
    ({"enum": [True]}, 1),
    ({"const": 1}, 1.0),
    ({"type": "number", "minimum": 0}, math.nan),
    ({"type": "object"}, type("Sub", (dict,), {})()),
    ({"type": "array"}, ("a",)),
])
def test_what_it_does_not_model_exactly_is_left_to_the_validator(schema: dict[str, Any], instance: Any) -> None:
    quick = compile_quick(schema)
    assert quick is not None and not quick(instance)
    _assert_same(schema, instance)


@pytest.mark.parametrize("schema", [
    {"anyOf": [{"type": "string"}]}, {"$ref": "#/$defs/x", "$defs": {"x": {}}}, {"multipleOf": 2},
    {"patternProperties": {"a": {}}, "additionalProperties": False}, {"properties": {"a": False}},
    {"type": "strange"}, {"maxLength": 1.0}, {"minimum": True}, {"pattern": "("}, {"x-vendor": 1},
    {"uniqueItems": True}, {"required": "a"}, False,
])
def test_schemas_with_other_keywords_get_no_quick_check(schema: Any) -> None:
    assert compile_quick(schema) is None


# -- random schemas of the modelled keywords, random JSON -------------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=5))
#: What a schema may hold (plain JSON: no NaN or infinity).
_schema_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False),
                            st.text(max_size=5))
_json = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3)),
    max_leaves=8)
_types = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])
_leaf_keywords = st.fixed_dictionaries({}, optional={
    "type": st.one_of(_types, st.lists(_types, min_size=1, max_size=3)),
    "enum": st.lists(_schema_scalars, min_size=1, max_size=4),
    "const": _schema_scalars,
    "minLength": st.integers(0, 4), "maxLength": st.integers(0, 4),
    "minItems": st.integers(0, 3), "maxItems": st.integers(0, 3),
    "minimum": st.one_of(st.integers(-3, 3), st.floats(-3, 3)), "maximum": st.integers(-3, 3),
    "exclusiveMinimum": st.integers(-3, 3), "exclusiveMaximum": st.floats(-3, 3),
    "pattern": st.sampled_from(["^a", "b$", "[0-9]", ""]),
    "format": st.sampled_from(["email", "date-time", "uri"]),
    "description": st.text(max_size=3),
})


def _with_children(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    names = st.sampled_from(["a", "b", "c"])
    return st.builds(
        lambda base, props, required, additional, items: {
            **base, **({"properties": props} if props is not None else {}),
            **({"required": required} if required is not None else {}),
            **({"additionalProperties": additional} if additional is not None else {}),
            **({"items": items} if items is not None else {}),
        },
        _leaf_keywords,
        st.none() | st.dictionaries(names, children, max_size=3),
        st.none() | st.lists(names, max_size=3),
        st.none() | st.booleans() | children,
        st.none() | children,
    )


_schemas = st.recursive(_leaf_keywords, _with_children, max_leaves=6)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas, instance=_json)
def test_random_schemas_and_values_get_the_validators_verdict_and_messages(schema: dict[str, Any],
                                                                          instance: Any) -> None:
    json.dumps(schema)  # plain JSON, as a tool's parameters are
    _assert_same(schema, instance)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(ALL_SCHEMAS)), instance=st.dictionaries(
    st.sampled_from(["path", "text", "content", "command", "url", "pattern", "limit", "n", "name", "message",
                     "timezone", "mode", "tags", "extra"]), _json, max_size=4))
def test_random_arguments_for_real_schemas_get_the_validators_verdict(name: str, instance: dict[str, Any]) -> None:
    _assert_same(ALL_SCHEMAS[name], instance)
