"""Converters, checked by each provider's own SDK types/validators (test-only deps, no network)."""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

import botocore.session
import botocore.validate
import pytest
from anthropic.types import ToolParam
from anthropic.types.tool_param import InputSchemaTyped
from google.genai import types as genai_types
from jsonschema import Draft202012Validator
from openai.types.chat import ChatCompletionToolParam
from pydantic import BaseModel, Field, TypeAdapter

from echo_desk.agent.converters import (
    CONVERTERS,
    convert_each,
    name_is_valid_for_all_providers,
    to_anthropic,
    to_bedrock,
    to_gemini,
    to_openai,
)
from echo_desk.agent.definitions import SchemaConversionError, ToolDefinition
from echo_desk.agent.schema_checks import check_tool_schema, strip_hidden

PROVIDERS = sorted(CONVERTERS)

# --- schemas shaped like the built-in tools (issue 3), a pydantic model and an MCP server's ---


def _obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required:
        schema["required"] = required
    return schema


PATH = {"type": "string", "description": "Path inside the workspace."}


class _Edit(BaseModel):
    old: str = Field(description="Exact text to replace; must occur once.")
    new: str
    replace_all: bool = False


class _EditArgs(BaseModel):
    path: str
    edits: list[_Edit] = Field(min_length=1)
    encoding: Literal["utf-8", "latin-1"] | None = None
    note: str | None = None
    first: _Edit | None = None  # anyOf [$ref, null]


BUILTIN_LIKE: dict[str, dict[str, Any]] = {
    "echo_text": _obj(
        {"text": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Text to return."}},
        ["text"], additionalProperties=False,
    ),
    "read_file": _obj(
        {
            "path": PATH,
            "start_line": {"type": "integer", "minimum": 1},
            "end_line": {"type": ["integer", "null"], "minimum": 1},
            "encoding": {"type": "string", "enum": ["auto", "utf-8", "utf-16", "latin-1"], "default": "auto"},
        },
        ["path"], additionalProperties=False,
    ),
    "list_dir": _obj(
        {"path": PATH, "depth": {"type": "integer", "minimum": 0, "maximum": 5, "default": 1},
         "max_entries": {"type": "integer", "exclusiveMinimum": 0}},
        ["path"],
    ),
    "search_files": _obj(
        {"path": PATH, "glob": {"type": "string", "examples": ["*.py"]}, "regex": {"type": "string"},
         "include_hidden": {"type": "boolean"}, "max_results": {"type": "integer", "maximum": 1000}},
        ["path"],
    ),
    "write_file": _obj({"path": PATH, "content": {"type": "string"}}, ["path", "content"]),
    "edit_file": _EditArgs.model_json_schema(),  # $defs + $ref + anyOf-with-null + titles
    "run_command": _obj(
        {"command": {"type": "string"}, "cwd": PATH,
         "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 600}},
        ["command"],
    ),
    "fetch_url": _obj(
        {"url": {"type": "string", "format": "uri", "pattern": "^https?://"},
         "max_bytes": {"type": "integer", "format": "int64"}},
        ["url"],
    ),
    "ask_user": _obj(
        {
            "question": {"type": "string"},
            "choices": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
            "form": {"type": "array", "items": _obj(
                {"name": {"type": "string"}, "label": {"type": "string"},
                 "kind": {"type": "string", "enum": ["text", "number", "boolean"]},
                 "default": {"type": ["string", "number", "boolean", "null"]}},
                ["name", "kind"],
            )},
        },
        ["question"],
    ),
    "update_todos": _obj(
        {"todos": {"type": "array", "items": _obj(
            {"id": {"type": "string"}, "text": {"type": "string"},
             "status": {"enum": ["pending", "in_progress", "done"]}},
            ["id", "text", "status"], additionalProperties=False,
        )}},
        ["todos"],
    ),
    "no_arguments": _obj({}),
    "mcp_style": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "mode": {"const": "fast", "description": "Only fast is supported."},
            "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["mode"],
        "additionalProperties": False,
    },
}


def _definitions(**schemas: dict[str, Any]) -> list[ToolDefinition]:
    return [ToolDefinition(name=n, description=f"The {n} tool.", parameters=s) for n, s in schemas.items()]


# --- each provider's own validation ---------------------------------------------------------

GEMINI_KEYS = {  # the Gemini Developer API subset (Vertex accepts more)
    "type", "format", "description", "nullable", "enum", "items", "properties", "required",
    "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
    "minProperties", "maxProperties", "anyOf",
}
GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}


def _walk_gemini(schema: dict[str, Any], where: str = "") -> None:
    assert set(schema) <= GEMINI_KEYS, f"{where}: {set(schema) - GEMINI_KEYS}"
    assert "anyOf" in schema or schema["type"] in GEMINI_TYPES, where
    for name, sub in schema.get("properties", {}).items():
        _walk_gemini(sub, f"{where}.{name}")
    if schema.get("type") == "OBJECT" and where:
        assert schema.get("properties"), f"{where}: Gemini rejects an OBJECT without properties"
    if schema.get("type") == "ARRAY":
        _walk_gemini(schema["items"], f"{where}[]")
    for branch in schema.get("anyOf", []):
        _walk_gemini(branch, f"{where}|")
    assert set(schema.get("required", [])) <= set(schema.get("properties", {})), where
    assert all(isinstance(v, str) for v in schema.get("enum", [])), where


_BEDROCK = botocore.session.get_session().create_client(
    "bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
)


def accept(provider: str, tools: list[dict[str, Any]]) -> None:
    """Fail unless ``provider``'s own SDK types/validators take ``tools`` as they are."""
    if provider == "openai":
        adapter = TypeAdapter(ChatCompletionToolParam)
        for tool in tools:
            # TypedDict validation drops unknown keys, so equality also proves there were none.
            assert adapter.validate_python(tool) == tool
            Draft202012Validator.check_schema(tool["function"]["parameters"])
    elif provider == "anthropic":
        adapter, typed = TypeAdapter(ToolParam), TypeAdapter(InputSchemaTyped)
        for tool in tools:
            assert adapter.validate_python(tool) == tool
            typed.validate_python(tool["input_schema"])  # requires "type": "object"
            Draft202012Validator.check_schema(tool["input_schema"])
    elif provider == "gemini":
        sdk_tool = genai_types.Tool.model_validate({"functionDeclarations": tools})
        assert [d.name for d in sdk_tool.function_declarations or []] == [t["name"] for t in tools]
        for tool in tools:
            assert set(tool) <= {"name", "description", "parameters"}
            if "parameters" in tool:
                genai_types.Schema.model_validate(tool["parameters"])  # extra="forbid"
                assert tool["parameters"]["type"] == "OBJECT"
                _walk_gemini(tool["parameters"])
    elif provider == "bedrock":
        params = {
            "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
            "messages": [{"role": "user", "content": [{"text": "hi"}]}],
            "toolConfig": {"tools": tools},
        }
        shape = _BEDROCK.meta.service_model.operation_model("Converse").input_shape
        report = botocore.validate.ParamValidator().validate(params, shape)
        assert not report.has_errors(), report.generate_report()
    else:  # pragma: no cover
        raise AssertionError(provider)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("tool_name", sorted(BUILTIN_LIKE))
def test_builtin_like_schemas_pass_each_providers_validation(provider: str, tool_name: str) -> None:
    schema = BUILTIN_LIKE[tool_name]
    assert check_tool_schema(schema) == []  # the registry would admit it
    before = copy.deepcopy(schema)
    accept(provider, CONVERTERS[provider](_definitions(**{tool_name: schema})))
    assert schema == before  # conversion never edits the registry's schema


@pytest.mark.parametrize("provider", PROVIDERS)
def test_all_tools_in_one_request(provider: str) -> None:
    tools = CONVERTERS[provider](_definitions(**BUILTIN_LIKE))
    assert len(tools) == len(BUILTIN_LIKE)
    accept(provider, tools)


def test_the_sdk_checks_really_fail_on_bad_output() -> None:
    with pytest.raises(AssertionError):
        accept("gemini", [{"name": "x", "parameters": {"type": "OBJECT", "properties": {"a": {
            "type": "OBJECT", "additionalProperties": False, "properties": {"b": {"type": "STRING"}}}}}}])
    with pytest.raises(AssertionError):
        accept("bedrock", [{"toolSpec": {"name": "x", "description": "", "inputSchema": {"json": {}}}}])
    with pytest.raises(AssertionError):
        accept("openai", [{"type": "function", "function": {"name": "x", "extra": 1}}])
    with pytest.raises(Exception):  # noqa: B017 - pydantic's error type is an SDK detail
        accept("anthropic", [{"name": "x", "input_schema": {"type": "array"}}])


# --- exact shapes --------------------------------------------------------------------------

SIMPLE = _obj({"text": {"type": "string", "description": "Text to return."}}, ["text"])


def test_simple_tool_shapes() -> None:
    (d,) = _definitions(echo_text=SIMPLE)
    assert to_openai([d]) == [{"type": "function", "function": {
        "name": "echo_text", "description": "The echo_text tool.", "parameters": SIMPLE}}]
    assert to_anthropic([d]) == [{"name": "echo_text", "description": "The echo_text tool.", "input_schema": SIMPLE}]
    assert to_bedrock([d]) == [{"toolSpec": {
        "name": "echo_text", "description": "The echo_text tool.", "inputSchema": {"json": SIMPLE}}}]
    assert to_gemini([d]) == [{"name": "echo_text", "description": "The echo_text tool.", "parameters": {
        "type": "OBJECT", "properties": {"text": {"type": "STRING", "description": "Text to return."}},
        "required": ["text"]}}]


def _wreck(value: Any) -> None:
    """Empty every container inside ``value``, depth first."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in list(children):
        _wreck(child)
    if isinstance(value, dict | list):
        value.clear()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_outputs_do_not_share_containers_with_the_definitions(provider: str) -> None:
    originals = {n: s for n, s in BUILTIN_LIKE.items() if n != "no_arguments"}
    definitions = _definitions(**copy.deepcopy(originals))
    out = CONVERTERS[provider](definitions)
    assert "pending" in json.dumps(out)
    _wreck(out)
    assert {d.name: d.parameters for d in definitions} == originals


@pytest.mark.parametrize("provider", PROVIDERS)
def test_empty_description_is_left_out(provider: str) -> None:
    out = CONVERTERS[provider]([ToolDefinition(name="t", description="", parameters=SIMPLE)])
    assert "description" not in json.dumps(out).replace('"description": "Text to return."', "")
    accept(provider, out)


def test_nested_objects_arrays_and_enums_survive_for_gemini() -> None:
    (decl,) = to_gemini(_definitions(update_todos=BUILTIN_LIKE["update_todos"]))
    item = decl["parameters"]["properties"]["todos"]["items"]
    assert decl["parameters"]["required"] == ["todos"]
    assert item["type"] == "OBJECT" and item["required"] == ["id", "text", "status"]
    assert item["properties"]["status"] == {"type": "STRING", "enum": ["pending", "in_progress", "done"]}


def test_gemini_inlines_defs_and_maps_null_unions() -> None:
    (decl,) = to_gemini(_definitions(edit_file=BUILTIN_LIKE["edit_file"]))
    text = json.dumps(decl)
    assert "$ref" not in text and "$defs" not in text and "title" not in text
    params = decl["parameters"]
    assert "description" not in params  # pydantic's root title is a class name, not news for the model
    assert "default" not in json.dumps(params["properties"]["note"])  # "default: null" says nothing
    edit = params["properties"]["edits"]["items"]
    assert edit["properties"]["old"]["description"] == "Exact text to replace; must occur once."
    assert edit["required"] == ["old", "new"]
    assert edit["properties"]["replace_all"] == {"type": "BOOLEAN", "description": "Replace All (default: false)"}
    assert params["properties"]["edits"]["minItems"] == 1
    assert params["properties"]["encoding"]["nullable"] is True
    assert params["properties"]["encoding"]["enum"] == ["utf-8", "latin-1"]
    assert params["properties"]["note"]["type"] == "STRING" and params["properties"]["note"]["nullable"]
    first = params["properties"]["first"]
    assert first["nullable"] is True and first["type"] == "OBJECT" and first["required"] == ["old", "new"]


def test_gemini_rewrites_what_it_rejects_into_what_it_takes() -> None:
    (decl,) = to_gemini(_definitions(mcp_style=BUILTIN_LIKE["mcp_style"]))
    props = decl["parameters"]["properties"]
    assert props["mode"] == {"type": "STRING", "description": "Only fast is supported.", "enum": ["fast"]}
    assert props["target"] == {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]}
    assert props["level"] == {"type": "INTEGER", "description": "One of 1, 2, 3"}  # Gemini enums are strings
    assert props["when"] == {"type": "STRING", "format": "date-time"}
    (url,) = to_gemini(_definitions(fetch_url=BUILTIN_LIKE["fetch_url"]))
    assert url["parameters"]["properties"]["url"]["description"] == "Format: uri"
    assert url["parameters"]["properties"]["max_bytes"]["format"] == "int64"
    (listing,) = to_gemini(_definitions(list_dir=BUILTIN_LIKE["list_dir"]))
    assert listing["parameters"]["properties"]["max_entries"] == {"type": "INTEGER", "description": "Must be > 0"}
    assert listing["parameters"]["properties"]["depth"]["description"] == "Default: 1"


def test_parameterless_tool_has_no_parameters_for_gemini() -> None:
    assert to_gemini(_definitions(no_arguments=_obj({}))) == [{"name": "no_arguments", "description": "The no_arguments tool."}]


# --- clear errors, never a silent drop --------------------------------------------------------


def _gemini_error(schema: dict[str, Any]) -> SchemaConversionError:
    with pytest.raises(SchemaConversionError) as caught:
        to_gemini(_definitions(bad_tool=schema))
    assert caught.value.tool_name == "bad_tool" and caught.value.provider == "gemini"
    assert "bad_tool" in str(caught.value)
    return caught.value


NODE = {"type": "object", "properties": {"value": {"type": "string"}, "children": {
    "type": "array", "items": {"$ref": "#/$defs/Node"}}}}


def test_recursive_ref_is_a_clear_error() -> None:
    error = _gemini_error({"type": "object", "$defs": {"Node": NODE}, "properties": {"tree": {"$ref": "#/$defs/Node"}}})
    assert "recursive $ref" in error.reason and "#/$defs/Node" in error.reason
    assert "tree" in error.reason  # says where
    assert "recursive" in _gemini_error(_obj({"again": {"$ref": "#"}})).reason


def test_recursive_schema_is_still_fine_for_the_other_providers() -> None:
    schema = {"type": "object", "$defs": {"Node": NODE}, "properties": {"tree": {"$ref": "#/$defs/Node"}}}
    for provider in ("openai", "anthropic", "bedrock"):
        accept(provider, CONVERTERS[provider](_definitions(tree_tool=schema)))


def test_exponential_ref_expansion_is_refused() -> None:
    defs = {f"L{i}": _obj({"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}}) for i in range(20)}
    defs["L20"] = {"type": "string"}
    assert "larger than" in _gemini_error({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/L0"}}}).reason


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (_obj({"meta": {"type": "object"}}), "free-form object"),
        (_obj({"meta": {"type": "object", "additionalProperties": {"type": "string"}}}), "free-form object"),
        (_obj({"tags": {"type": "array"}}), "without 'items'"),
        (_obj({"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}}), "tuple"),
        (_obj({"anything": {}}), "any value"),
        (_obj({"anything": True}), "any value"),
        (_obj({"vague": {"description": "no type"}}), "no type"),
        (_obj({"x": {"$ref": "https://example.com/s.json"}}), "only local $ref"),
        (_obj({"x": {"$ref": "#/$defs/Missing"}}), "points nowhere"),
        (_obj({"x": {"allOf": [{"type": "string"}, {"minLength": 2, "type": "string"}]}}), "allOf"),
        (_obj({"x": {"type": "null"}}), "'null'"),
        (_obj({"bad-name": {"type": "string"}}), "parameter name 'bad-name'"),
    ],
)
def test_unrepresentable_for_gemini(schema: dict[str, Any], words: str) -> None:
    assert words in _gemini_error(schema).reason


@pytest.mark.parametrize("provider", PROVIDERS)
def test_parameters_must_be_an_object_schema(provider: str) -> None:
    with pytest.raises(SchemaConversionError, match="object"):
        CONVERTERS[provider](_definitions(listy={"type": "array", "items": {"type": "string"}}))


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "naïve", "a/b", "semi;colon"])
def test_bad_names_are_clear_errors(provider: str, name: str) -> None:
    with pytest.raises(SchemaConversionError) as caught:
        CONVERTERS[provider]([ToolDefinition(name=name, description="d", parameters=SIMPLE)])
    assert caught.value.provider == provider and "tool name must be" in caught.value.reason
    assert not name_is_valid_for_all_providers(name)


def test_name_rules_differ_where_providers_differ() -> None:
    dotted = [ToolDefinition(name="fs.read", description="d", parameters=SIMPLE)]
    assert to_gemini(dotted)[0]["name"] == "fs.read"
    with pytest.raises(SchemaConversionError):
        to_openai(dotted)
    digit = [ToolDefinition(name="1tool", description="d", parameters=SIMPLE)]
    assert to_anthropic(digit)[0]["name"] == "1tool"
    with pytest.raises(SchemaConversionError, match="starting with a letter"):
        to_gemini(digit)
    for name in ("fs.read", "1tool"):
        assert not name_is_valid_for_all_providers(name)
    for name in ("echo_text", "_private", "mcp-github__create_issue", "x" * 64):
        assert name_is_valid_for_all_providers(name)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_duplicate_names_are_refused(provider: str) -> None:
    d = ToolDefinition(name="twice", description="d", parameters=SIMPLE)
    with pytest.raises(SchemaConversionError, match="two tools share this name"):
        CONVERTERS[provider]([d, d])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_hidden_parameters_never_appear(provider: str) -> None:
    hidden = ("user_id", "workspace_id", "auth_token")
    schema = _obj(
        {"query": {"type": "string"}, **{h: {"type": "string", "description": f"secret {h}"} for h in hidden}},
        ["query", "auth_token", "user_id"],
    )
    tools = CONVERTERS[provider](_definitions(search=strip_hidden(schema, hidden)))
    text = json.dumps(tools)
    assert "query" in text
    for h in hidden:
        assert h not in text
    accept(provider, tools)


def test_convert_each_keeps_the_good_tools_and_names_the_bad_ones() -> None:
    good = ToolDefinition(name="echo_text", description="d", parameters=SIMPLE)
    free_form = ToolDefinition(name="configure", description="d", parameters=_obj({"options": {"type": "object"}}))
    tools, errors = convert_each("gemini", [good, free_form, good])
    assert [t["name"] for t in tools] == ["echo_text"]
    assert [(e.tool_name, e.provider) for e in errors] == [("configure", "gemini"), ("echo_text", "gemini")]
    assert "free-form object" in errors[0].reason and "share this name" in errors[1].reason
    accept("gemini", tools)
    tools, errors = convert_each("openai", [good, free_form])
    assert len(tools) == 2 and errors == []
