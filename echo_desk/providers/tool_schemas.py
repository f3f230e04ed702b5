"""Tool definitions in each provider's request shape, via the shared converters.

The conversion itself lives in ``echo_desk.agent.converters`` (one thin converter per provider,
``SchemaConversionError`` naming the tool for anything a provider cannot take); this module
only wraps the results the way each request body nests them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from echo_desk.agent.converters import to_anthropic, to_gemini, to_openai
from echo_desk.agent.definitions import ToolDefinition


def openai_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return to_openai(defs)


def anthropic_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return to_anthropic(defs)


def gemini_tools(defs: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """One ``tools`` entry holding every function declaration."""
    return [{"functionDeclarations": to_gemini(defs)}] if defs else []
