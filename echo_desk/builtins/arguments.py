"""A built-in tool's arguments, declared once: the JSON schema the model sees and the typed
values the handler reads both come from one pydantic model.

The dispatcher validates every call against the schema before a handler runs; the model's own
(strict) validation is what a handler called directly gets, and what turns the JSON into typed
attributes. Both come from the same declaration, so they cannot drift apart.

The schema is written in the shape the hand-written ones had (``docs/tools.md``): no titles,
nested objects inlined, a field whose default is ``None`` is optional with no default shown,
keywords in one order. Only the constructs the built-ins use are supported; anything else is a
``TypeError`` at import, not a silently different schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from echo_desk.tools import ErrorKind, PathAccess, PathArgument, ToolError

#: The order of the keywords in a generated schema (the order the hand-written ones used).
_KEYWORD_ORDER = ("type", "enum", "properties", "required", "minLength", "maxLength", "minItems", "maxItems",
                  "items", "minimum", "maximum", "default", "description", "additionalProperties")
_DROPPED = frozenset({"title"})


class Arguments(BaseModel):
    """The base of every built-in's arguments: unknown names refused, no coercion ("5" is not 5,
    true is not 1), values frozen once parsed."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        # An optional argument is left out, never sent as null: the schema has no null type, so
        # the model refuses what the dispatcher's validator refuses.
        if isinstance(data, dict):
            nulls = [name for name, value in data.items() if value is None and name in cls.model_fields]
            if nulls:
                raise ValueError(f"'{nulls[0]}' must not be null (leave it out instead)")
        return data


A = TypeVar("A", bound=Arguments)


class TakesArguments(Generic[A]):
    """Mixed into a tool class: its ``arguments`` model declares what a call takes. The schema
    the model sees (the class attribute ``schema_attribute`` names) and the path arguments the
    permission rules judge (fields marked ``READS`` / ``WRITES``) are made from it when the class
    is defined, and ``parse`` turns a call's arguments into it."""

    arguments: type[A]
    schema_attribute: ClassVar[str] = "parameters"
    path_arguments: ClassVar[Mapping[str, PathAccess]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("arguments")
        if declared is not None:
            setattr(cls, cls.schema_attribute, schema_of(declared))
            cls.path_arguments = path_arguments_of(declared)

    def parse(self, params: Mapping[str, Any]) -> A:
        parsed: A = parse(self.arguments, params)
        return parsed


def schema_of(model: type[Arguments]) -> dict[str, Any]:
    """The model-visible JSON schema of ``model``."""
    raw = model.model_json_schema(mode="validation")
    definitions = raw.get("$defs", {})
    return _shape(raw, definitions)


def path_arguments_of(model: type[Arguments]) -> dict[str, PathAccess]:
    """The fields of ``model`` marked as paths (``READS`` / ``WRITES``), with their access."""
    found: dict[str, PathAccess] = {}
    for name, field in model.model_fields.items():
        marks = [m for m in field.metadata if isinstance(m, PathArgument)]
        if len(marks) > 1:
            raise TypeError(f"{model.__name__}.{name} is marked as a path more than once")
        if marks:
            found[name] = marks[0].access
    return found


def parse(model: type[Arguments], params: object) -> Any:
    """``params`` as ``model``; a ``ToolError`` (validation) naming each problem otherwise."""
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise ToolError(describe(exc), kind=ErrorKind.VALIDATION) from None


def describe(exc: ValidationError) -> str:
    """One line per problem, naming the argument by its path ("edits.0.old")."""
    problems = []
    for error in exc.errors(include_url=False)[:5]:
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "missing":
            problems.append(f"missing required argument '{where}'")
        elif error["type"] == "extra_forbidden":
            problems.append(f"unknown argument '{where}'")
        else:
            message = error["msg"].removeprefix("Value error, ")
            problems.append(f"'{where}': {message[:1].lower()}{message[1:]}" if where else message)
    return "; ".join(problems)


def _shape(node: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return _shape({**definitions[name], **{k: v for k, v in node.items() if k != "$ref"}}, definitions)
    node = _without_none(node)
    unknown = set(node) - set(_KEYWORD_ORDER) - _DROPPED - {"$defs"}
    if unknown:
        raise TypeError(f"argument schemas of built-in tools do not use {sorted(unknown)}")
    shaped: dict[str, Any] = {}
    for key in _KEYWORD_ORDER:
        if key not in node:
            continue
        value = node[key]
        if key == "properties":
            value = {name: _shape(spec, definitions) for name, spec in value.items()}
        elif key == "items":
            value = _shape(value, definitions)
        elif key == "additionalProperties" and value is True:
            continue  # a free-form object: the hand-written schemas say nothing
        shaped[key] = value
    return shaped


def _without_none(node: dict[str, Any]) -> dict[str, Any]:
    """``X | None = None`` is an optional ``X``: the ``null`` branch and the default go."""
    branches = node.get("anyOf")
    if branches is None:
        return node
    kept = [b for b in branches if b != {"type": "null"}]
    if len(kept) != 1 or len(kept) == len(branches):
        raise TypeError("a built-in argument may only be one type, or one type or None")
    rest = {k: v for k, v in node.items() if k != "anyOf" and not (k == "default" and v is None)}
    return {**kept[0], **rest}
