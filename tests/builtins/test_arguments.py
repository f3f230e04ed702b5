"""A built-in's arguments are declared once (``builtins.arguments``): the schema the model sees is
made from the model that parses them, and both say yes and no to the same calls."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import Field

from echo_desk.builtins import builtin_tools
from echo_desk.builtins.arguments import Arguments, parse, schema_of
from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, DbSchemaTool
from echo_desk.store.settings import Settings
from echo_desk.tools import ErrorKind, ToolError
from tests.agent.test_schema_quick import HOSTILE_VALUES

TOOLS: dict[str, Any] = {tool.name: tool for tool in [
    *builtin_tools(), DbQueryTool(Settings), DbSchemaTool(Settings), DbExecuteTool(Settings)]}

#: One call each tool accepts, to vary from.
GOOD: dict[str, dict[str, Any]] = {
    "read_file": {"path": "a.txt", "start_line": 2, "max_lines": 3},
    "list_dir": {"path": "src", "depth": 2},
    "search_files": {"regex": "TODO", "glob": "*.py", "case_sensitive": False},
    "write_file": {"path": "a.txt", "content": ""},
    "edit_file": {"path": "a.txt", "edits": [{"old": "a", "new": "b", "replace_all": True}]},
    "append_to_file": {"path": "a.txt", "text": "x"},
    "move_path": {"source": "a", "destination": "b"},
    "copy_path": {"source": "a", "destination": "b"},
    "delete_path": {"path": "a"},
    "create_folder": {"path": "a"},
    "run_command": {"command": "ls", "cwd": ".", "timeout_seconds": 5, "outside_sandbox": False},
    "fetch_url": {"url": "https://example.org", "timeout_seconds": 5},
    "ask_user": {"question": "Which?", "choices": ["a", "b"]},
    "update_todos": {"todos": [{"text": "a", "status": "in_progress"}, {"text": "b"}]},
    "echo_text": {"text": "hi"},
    "db_query": {"connection": "main", "sql": "select 1", "max_rows": 5},
    "db_execute": {"connection": "main", "sql": "delete from t"},
    "db_schema": {"connection": "main", "table": "t"},
}


def _schema(name: str) -> dict[str, Any]:
    tool = TOOLS[name]
    return type(tool).base_parameters if hasattr(type(tool), "base_parameters") else tool.parameters


def _parses(name: str, instance: Any) -> bool:
    try:
        parse(TOOLS[name].arguments, instance)
    except ToolError as error:
        assert error.kind is ErrorKind.VALIDATION and error.message
        return False
    return True


def _variants(name: str) -> list[Any]:
    """The good call, then each of its arguments (and two undeclared ones) set to each hostile
    value, removed, or nested the same way inside the first item of a list of objects."""
    good = GOOD[name]
    out: list[Any] = [good, {}, *HOSTILE_VALUES]
    names = [*(_schema(name).get("properties") or {}), "unexpected", "user_id"]
    for key in names:
        out.append({k: v for k, v in good.items() if k != key})
        for value in HOSTILE_VALUES:
            out.append({**good, key: value})
    for key, value in good.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            for inner in [*value[0], "unexpected"]:
                for hostile in HOSTILE_VALUES:
                    out.append({**good, key: [{**value[0], inner: hostile}, *value[1:]]})
    return out


def test_every_built_in_declares_its_arguments() -> None:
    assert set(TOOLS) == set(GOOD)
    assert all("arguments" in vars(type(tool)) or hasattr(type(tool), "arguments") for tool in TOOLS.values())


@pytest.mark.parametrize("name", sorted(GOOD))
def test_the_parser_and_the_schema_validator_agree_on_hostile_calls(name: str) -> None:
    validator = Draft202012Validator(_schema(name))
    for instance in _variants(name):
        # jsonschema counts 1.0 as an integer and takes a tuple for an array; JSON has neither
        # (the dispatcher parses JSON text), so only what JSON can carry is compared.
        if json.loads(json.dumps(instance, allow_nan=True)) != instance or "1.0" in repr(instance):
            continue
        assert _parses(name, instance) is validator.is_valid(instance), (name, instance)


@pytest.mark.parametrize("name", sorted(GOOD))
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(data=st.data())
def test_random_json_arguments_get_the_same_verdict(name: str, data: st.DataObject) -> None:
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(-3, 3000) | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["old", "new", "text", "x"]),
                                                                       inner, max_size=3),
        max_leaves=6,
    )
    keys = [*(_schema(name).get("properties") or {}), "other"]
    instance = {**GOOD[name], **data.draw(st.dictionaries(st.sampled_from(keys), json_values, max_size=3))}
    assert _parses(name, instance) is Draft202012Validator(_schema(name)).is_valid(instance), instance


def test_a_schema_is_made_in_the_hand_written_shape() -> None:
    class Item(Arguments):
        old: Annotated[str, Field(min_length=1, description="Old.")]

    class Made(Arguments):
        path: Annotated[str, Field(min_length=1, max_length=9, description="A path.")]
        items: Annotated[list[Item], Field(min_length=1, max_length=2)]
        limit: Annotated[int, Field(ge=1, le=5)] = 3
        note: Annotated[str | None, Field(max_length=4)] = None

    assert json.dumps(schema_of(Made)) == json.dumps({
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "maxLength": 9, "description": "A path."},
            "items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
                "type": "object", "properties": {"old": {"type": "string", "minLength": 1, "description": "Old."}},
                "required": ["old"], "additionalProperties": False}},
            "limit": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
            "note": {"type": "string", "maxLength": 4},
        },
        "required": ["path", "items"],
        "additionalProperties": False,
    })


def test_a_construct_the_shape_does_not_cover_is_refused_at_declaration() -> None:
    class Either(Arguments):
        value: int | str

    class Pattern(Arguments):
        value: Annotated[str, Field(pattern="^a")]

    for model in (Either, Pattern):
        with pytest.raises(TypeError):
            schema_of(model)


def test_parse_errors_name_the_argument() -> None:
    tool = TOOLS["edit_file"]
    with pytest.raises(ToolError) as missing:
        parse(tool.arguments, {"path": "a.txt"})
    assert "missing required argument 'edits'" in missing.value.message
    with pytest.raises(ToolError) as nested:
        parse(tool.arguments, {"path": "a.txt", "edits": [{"old": "", "new": "b"}], "x": 1})
    assert "'edits.0.old'" in nested.value.message and "unknown argument 'x'" in nested.value.message
