"""Provider-neutral ``ToolDefinition``s → each provider's tool JSON. Pure functions, no I/O.

One thin converter per provider. Each checks the tool name against that provider's rule, refuses
duplicate names, and never hands out the caller's dicts (outputs are deep copies). A schema a
provider cannot represent raises :class:`SchemaConversionError` naming the tool — never a silent
drop; the caller decides whether to hide that tool or fail the request.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Any

from echo_desk.agent.definitions import SchemaConversionError, ToolDefinition
from echo_desk.agent.gemini_schema import GeminiSchemaError, to_gemini_schema

# Name rules as each provider documents them.
_NAME_RULES: dict[str, tuple[re.Pattern[str], str]] = {
    # OpenAI FunctionDefinition.name: a-z, A-Z, 0-9, '_' and '-', at most 64.
    "openai": (re.compile(r"[A-Za-z0-9_-]{1,64}"), "1-64 letters, digits, '_' or '-'"),
    # Anthropic tool name: ^[a-zA-Z0-9_-]{1,64}$ (messages API).
    "anthropic": (re.compile(r"[A-Za-z0-9_-]{1,64}"), "1-64 letters, digits, '_' or '-'"),
    # Gemini FunctionDeclaration.name: starts with a letter or '_'; letters, digits, '_', '.', '-'; ≤ 64.
    "gemini": (
        re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}"),
        "1-64 letters, digits, '_', '.' or '-', starting with a letter or '_'",
    ),
    # Bedrock Converse ToolSpecification.name: pattern [a-zA-Z0-9_-]+, length 1-64 (botocore model).
    "bedrock": (re.compile(r"[A-Za-z0-9_-]{1,64}"), "1-64 letters, digits, '_' or '-'"),
}
# The intersection of the rules above; what the registry admits so every provider can take a tool.
PORTABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")

# Gemini (Vertex docs): parameter names start with a letter or '_'; letters, digits, '_'; ≤ 64.
_GEMINI_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def name_is_valid_for_all_providers(name: str) -> bool:
    """True when every supported provider accepts ``name`` as a tool name."""
    return isinstance(name, str) and PORTABLE_NAME.fullmatch(name) is not None


def _check(definitions: Sequence[ToolDefinition], provider: str) -> None:
    pattern, rule = _NAME_RULES[provider]
    seen: set[str] = set()
    for definition in definitions:
        name = definition.name
        if not isinstance(name, str) or not pattern.fullmatch(name):
            raise SchemaConversionError(str(name), provider, f"the tool name must be {rule}")
        if name in seen:
            raise SchemaConversionError(name, provider, "two tools share this name")
        seen.add(name)
        schema = definition.parameters
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise SchemaConversionError(name, provider, 'the parameters must be a JSON Schema with "type": "object"')


def _with_description(out: dict[str, Any], description: str) -> dict[str, Any]:
    # Bedrock refuses an empty description (min length 1); the others gain nothing from one.
    if description:
        out["description"] = description
    return out


def to_openai(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """OpenAI chat completions ``tools``: ``{"type": "function", "function": {...}}`` each."""
    _check(definitions, "openai")
    return [
        {
            "type": "function",
            "function": _with_description(
                {"name": d.name, "parameters": copy.deepcopy(d.parameters)}, d.description
            ),
        }
        for d in definitions
    ]


def to_anthropic(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Anthropic messages ``tools``: ``{"name", "description", "input_schema"}`` each."""
    _check(definitions, "anthropic")
    return [
        _with_description({"name": d.name, "input_schema": copy.deepcopy(d.parameters)}, d.description)
        for d in definitions
    ]


def to_gemini(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Gemini ``functionDeclarations`` (put them in ``{"functionDeclarations": [...]}``).

    ``$ref``/``$defs`` are inlined and unsupported keywords dropped (see
    :mod:`echo_desk.agent.gemini_schema`); a parameterless tool has no ``parameters`` key.
    """
    _check(definitions, "gemini")
    declarations: list[dict[str, Any]] = []
    for d in definitions:
        try:
            parameters = to_gemini_schema(d.parameters)
        except GeminiSchemaError as exc:
            raise SchemaConversionError(d.name, "gemini", str(exc)) from None
        except RecursionError:
            raise SchemaConversionError(d.name, "gemini", "the schema is nested too deeply") from None
        declaration = _with_description({"name": d.name}, d.description)
        if parameters is not None:
            bad = [p for p in parameters["properties"] if not _GEMINI_PARAMETER.fullmatch(p)]
            if bad:
                raise SchemaConversionError(
                    d.name, "gemini",
                    f"parameter name {bad[0]!r} must be 1-64 letters, digits or '_', starting with a letter or '_'",
                )
            declaration["parameters"] = parameters
        declarations.append(declaration)
    return declarations


def to_bedrock(definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Bedrock Converse ``toolConfig.tools``: ``{"toolSpec": {"name", "description", "inputSchema"}}``."""
    _check(definitions, "bedrock")
    return [
        {
            "toolSpec": _with_description(
                {"name": d.name, "inputSchema": {"json": copy.deepcopy(d.parameters)}}, d.description
            )
        }
        for d in definitions
    ]


Converter = Callable[[Sequence[ToolDefinition]], list[dict[str, Any]]]

CONVERTERS: dict[str, Converter] = {
    "openai": to_openai,
    "anthropic": to_anthropic,
    "gemini": to_gemini,
    "bedrock": to_bedrock,
}


def convert_each(
    provider: str, definitions: Sequence[ToolDefinition]
) -> tuple[list[dict[str, Any]], list[SchemaConversionError]]:
    """Convert tool by tool: the tools ``provider`` takes, and an error for each one it cannot.

    For callers that would rather send the other tools than fail the whole request; the errors
    are returned (to show as "hidden: ..." reasons), never swallowed.
    """
    convert = CONVERTERS[provider]
    tools: list[dict[str, Any]] = []
    errors: list[SchemaConversionError] = []
    seen: set[str] = set()
    for definition in definitions:
        if definition.name in seen:
            errors.append(SchemaConversionError(definition.name, provider, "two tools share this name"))
            continue
        seen.add(definition.name)
        try:
            tools.extend(convert([definition]))
        except SchemaConversionError as exc:
            errors.append(exc)
    return tools, errors
