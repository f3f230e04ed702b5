"""Turning an MCP ``CallToolResult`` into a ``ToolResult`` (text for the model, capped)."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from echo_desk.mcp.sanitize import strip_hidden
from echo_desk.tools import ErrorKind, ToolResult

#: What one call may hand to the model; the rest is cut with a note (servers are untrusted).
MAX_OUTPUT_CHARS = 100_000


def _block_text(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if isinstance(block, types.AudioContent):
        return f"[audio {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.uri}" + (f" ({block.name})" if block.name else "") + "]"
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        if isinstance(res, types.TextResourceContents):
            return f"[resource {res.uri}]\n{res.text}"
        return f"[resource {res.uri}, {res.mime_type or 'binary'}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def convert_result(result: types.CallToolResult, *, server: str, tool: str) -> ToolResult:
    """Text blocks joined; structured content as JSON when there is no text; ``isError`` → business."""
    parts = [_block_text(block) for block in result.content]
    structured = result.structured_content
    if structured is not None and not any(isinstance(b, types.TextContent) for b in result.content):
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts)
    # Hidden characters in a result are not stripped (it is data) but they are counted.
    _clean, hidden = strip_hidden(text)
    metadata: dict[str, Any] = {"mcp_server": server, "mcp_tool": tool}
    if hidden:
        metadata["hidden_characters"] = len(hidden)
    if structured is not None:
        metadata["structured_content"] = structured
    if len(text) > MAX_OUTPUT_CHARS:
        metadata["truncated_from_chars"] = len(text)
        text = text[:MAX_OUTPUT_CHARS] + f"\n[output cut at {MAX_OUTPUT_CHARS} of {len(text)} characters]"
    if result.is_error:
        return ToolResult.fail(ErrorKind.BUSINESS, text or f"{server}/{tool} reported an error", metadata=metadata)
    return ToolResult.ok(text, metadata=metadata)
