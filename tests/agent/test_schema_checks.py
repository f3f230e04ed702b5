"""Admission checks for untrusted schemas, the validator cache and model-facing error messages."""

from __future__ import annotations

import time
from typing import Any

import pytest

from echo_desk.agent.schema_checks import (
    check_tool_schema,
    compiled_validator,
    describe_validation_error,
    strip_hidden,
    validator_cache_info,
)

GOOD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "maxLength": 5},
        "path": {"type": "string"},
        "count": {"type": ["integer", "null"], "minimum": 0},
        "mode": {"enum": ["fast", "slow"]},
        "edits": {"type": "array", "items": {
            "type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["old", "new"], "additionalProperties": False,
        }},
        "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["text", "path"],
    "additionalProperties": False,
}


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"inner": schema}}
    return schema


def test_a_good_schema_has_no_problems() -> None:
    assert check_tool_schema(GOOD) == []


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ([], "must be a JSON object, not array"),
        ({"properties": {}}, '"type": "object"'),
        ({"type": "array", "items": {}}, "got type 'array'"),
        ({"type": "object", "properties": {"a": {"type": "strnig"}}}, "not a valid JSON Schema (Draft 2020-12) at properties/a/type"),
        ({"type": "object", "required": "a"}, "at required"),
        ({"type": "object", "properties": {"a": {"minLength": -1}}}, "not a valid JSON Schema"),
        ({"type": "object", "properties": {"a": {"$ref": "https://evil.example/s.json"}}}, "only local $ref"),
        ({"type": "object", "default": {1, 2}}, "not plain JSON"),
        ({"type": "object", "properties": {"n": {"type": "number", "maximum": float("nan")}}}, "not plain JSON"),
    ],
)
def test_bad_schemas_are_named(schema: Any, words: str) -> None:
    problems = check_tool_schema(schema)
    assert any(words in p for p in problems), problems


def test_depth_cap() -> None:
    assert check_tool_schema(_nested(12)) == []
    (problem,) = check_tool_schema(_nested(13))
    assert problem == "the schema nests 13 levels deep (limit 12)"
    assert check_tool_schema(_nested(13), max_depth=13) == []


def test_pathological_nesting_is_refused_without_recursing() -> None:
    deep: Any = "x"
    for _ in range(50_000):  # far beyond the interpreter's recursion limit
        deep = [deep]
    started = time.perf_counter()
    problems = check_tool_schema({"type": "object", "default": deep})
    assert problems and "nested too deeply" in problems[0]
    assert time.perf_counter() - started < 5  # generous: a shared 2-core machine


def test_size_cap() -> None:
    big = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "d" * 200} for i in range(200)}}
    problems = check_tool_schema(big)
    assert any(p.startswith("the schema is ") and "bytes (limit 32768)" in p for p in problems), problems
    assert check_tool_schema(big, max_bytes=1_000_000) == []


def test_a_schema_of_megabytes_is_refused_at_the_caps_cost_not_its_own() -> None:
    # A server's schema may be megabytes: once a cap refuses it, nothing that costs in proportion
    # to it runs (the metaschema check took ~10 s on the one with 8,000 properties), and the
    # walk stops once it has counted more values than fit in the byte cap.
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 1000}
                                             for i in range(8000)}}
    many_values = {"type": "object", "properties": {"a": {"enum": list(range(3_000_000))}}}
    for schema, problem in ((wide, "8000 properties (limit 256)"), (many_values, "more than 32768 values")):
        started = time.perf_counter()
        problems = check_tool_schema(schema)
        assert any(problem in p for p in problems), problems
        assert time.perf_counter() - started < 2  # was ~10 s (wide); generous on a shared 2-core machine


def test_property_count_cap_counts_nested_properties_too() -> None:
    flat = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(256)}}
    assert check_tool_schema(flat) == []
    nested = {**flat, "properties": {**flat["properties"], "sub": {"type": "object", "properties": {"x": {}}}}}
    assert check_tool_schema(nested) == ["the schema declares 258 properties (limit 256)"]


def test_strip_hidden() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "user_id": {"type": "string"},
              "auth_token": {"type": "string"}}, "required": ["user_id", "q"]}
    stripped = strip_hidden(schema, {"user_id", "auth_token"})
    assert stripped == {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    assert set(schema["properties"]) == {"q", "user_id", "auth_token"}  # input untouched
    only_hidden = strip_hidden({"type": "object", "properties": {"user_id": {}}, "required": ["user_id"]}, ["user_id"])
    assert only_hidden == {"type": "object", "properties": {}}


def test_validator_cache_hits_for_equal_schemas() -> None:
    schema = {"type": "object", "properties": {"cache_probe": {"type": "string"}}}
    first = compiled_validator(schema)
    before = validator_cache_info()
    reordered = {"properties": {"cache_probe": {"type": "string"}}, "type": "object"}
    assert compiled_validator(reordered) is first
    after = validator_cache_info()
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"]
    other = compiled_validator({"type": "object", "properties": {"cache_probe": {"type": "integer"}}})
    assert other is not first and validator_cache_info()["misses"] == before["misses"] + 1


def test_cached_validator_ignores_later_mutation_of_the_callers_dict() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"mutation_probe": {"type": "string"}}}
    validator = compiled_validator(schema)
    schema["properties"]["mutation_probe"]["type"] = "integer"
    assert validator.is_valid({"mutation_probe": "text"})
    # The same dict, changed in place, gets a validator for what it says now.
    assert not compiled_validator(schema).is_valid({"mutation_probe": "text"})
    assert compiled_validator(schema).is_valid({"mutation_probe": 3})


def test_the_same_schema_object_skips_canonical_json(monkeypatch) -> None:
    import echo_desk.agent.schema_checks as checks

    schema: dict[str, Any] = {"type": "object", "properties": {"identity_probe": {"type": "string"}}}
    first = compiled_validator(schema)
    monkeypatch.setattr(checks, "canonical_json", lambda value: pytest.fail("hashed the schema again"))
    assert compiled_validator(schema) is first


def _messages(instance: Any, schema: dict[str, Any] = GOOD) -> list[str]:
    errors = compiled_validator(schema).iter_errors(instance)
    return sorted(describe_validation_error(e) for e in errors)


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        ({"text": 5, "path": "p"}, ["argument 'text': expected string, got integer"]),
        ({}, ["missing required argument 'path'", "missing required argument 'text'"]),
        ({"text": "a", "path": "p", "foo": 1},
         ["unexpected argument 'foo' (allowed: count, edits, mode, path, text, when)"]),
        ({"text": "toolong", "path": "p"}, ["argument 'text': expected at most 5 characters, got 7"]),
        ({"text": "a", "path": "p", "mode": "medium"},
         ['argument \'mode\': expected one of "fast", "slow", got "medium"']),
        ({"text": "a", "path": "p", "count": "3"}, ["argument 'count': expected integer or null, got string"]),
        ({"text": "a", "path": "p", "count": -1}, ["argument 'count': expected a number >= 0, got -1"]),
        ({"text": "a", "path": "p", "when": 3}, ["argument 'when': expected string or null, got integer"]),
        ({"text": "a", "path": "p", "edits": [{"old": "x"}]}, ["missing required argument 'edits[0].new'"]),
        ({"text": "a", "path": "p", "edits": [{"old": "x", "new": 1}]},
         ["argument 'edits[0].new': expected string, got integer"]),
        ([1, 2], ["arguments: expected object, got array"]),
    ],
)
def test_error_messages_name_the_field_and_the_expectation(instance: Any, expected: list[str]) -> None:
    assert _messages(instance) == expected


def test_a_failing_branch_of_a_union_is_described_from_inside() -> None:
    schema = {"type": "object", "properties": {"target": {"anyOf": [
        {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]},
        {"type": "string", "minLength": 1},
    ]}}}
    assert _messages({"target": {"line": "7"}}, schema) == ["argument 'target.line': expected integer, got string"]
    assert _messages({"target": 7}, schema) == ["argument 'target': expected object or string, got integer"]
    assert _messages({"target": ""}, schema) == ["argument 'target': expected at least 1 character, got 0"]
    schema["properties"]["target"]["anyOf"].append({"type": "integer", "minimum": 1})
    assert _messages({"target": 7.5}, schema) == ["argument 'target': expected object or string or integer, got number"]


def test_long_values_are_shortened_in_messages() -> None:
    (message,) = _messages({"text": "a", "path": "p", "mode": "z" * 5000})
    assert len(message) < 200 and message.endswith("…")
