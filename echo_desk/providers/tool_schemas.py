"""Tool definitions in each provider's shape.

TEMPORARY: the shared converters (``echo_desk.agent.converters``: ``to_openai``,
``to_anthropic``, ``to_gemini``) are being written in another branch. Until they land, the
minimal private conversion below is used. Replace this module's bodies with calls to the
shared converters after ``git merge main``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from echo_desk.agent.definitions import SchemaConversionError, ToolDefinition

# Keywords Gemini's schema subset rejects; the rest of the schema passes through unchanged.
_GEMINI_DROP = frozenset({"$schema", "additionalProperties", "$id", "$comment", "examples"})


def openai_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": d.name, "description": d.description, "parameters": d.parameters},
        }
        for d in defs
    ]


def anthropic_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return [{"name": d.name, "description": d.description, "input_schema": d.parameters} for d in defs]


def gemini_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """One ``tools`` entry holding every function declaration."""
    if not defs:
        return []
    decls = [
        {"name": d.name, "description": d.description, "parameters": _gemini_schema(d.parameters, d.name)}
        for d in defs
    ]
    return [{"functionDeclarations": decls}]


def _gemini_schema(node: Any, tool: str) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            raise SchemaConversionError(tool, "gemini", "$ref is not supported by this minimal converter")
        return {k: _gemini_schema(v, tool) for k, v in node.items() if k not in _GEMINI_DROP}
    if isinstance(node, list):
        return [_gemini_schema(v, tool) for v in node]
    return node
