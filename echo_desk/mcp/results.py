"""Turning an MCP ``CallToolResult`` into a ``ToolResult`` (text for the model, capped)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import mcp_types as types

from echo_desk.mcp.sanitize import strip_hidden
from echo_desk.tools import ErrorKind, ToolResult
from echo_desk.tools.planted_told import named_and_counted

if TYPE_CHECKING:
    from echo_desk.tools.planted import Planted

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


def _capped_text(parts: list[str], cap: int) -> tuple[str, int]:
    """The parts joined by newlines, cut at ``cap`` characters, and the full length.

    Only what is kept is ever copied: a 50 MB answer costs as much as a 100 KB one."""
    total = sum(len(part) for part in parts) + max(len(parts) - 1, 0)
    kept: list[str] = []
    room = cap
    for index, part in enumerate(parts):
        if index:
            kept.append("\n")
            room -= 1
        if room <= 0:
            break
        kept.append(part[:room])
        room -= len(kept[-1])
    return "".join(kept)[:cap], total


def _structured_json(structured: Any) -> str:
    try:
        return json.dumps(structured, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return "[structured content that cannot be shown as JSON]"


def _larger_than(value: Any, limit: int) -> bool:
    """Whether ``value``'s JSON is surely longer than ``limit``, by a walk that stops once it is."""
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += len(item) + 3
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
            size += 2
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
            size += 2
        else:
            size += 8
        if size > limit:
            return True
    return False


def convert_result(result: types.CallToolResult, *, server: str, tool: str) -> ToolResult:
    """Text blocks joined; structured content as JSON when there is no text; ``isError`` → business.

    The text is capped first (``MAX_OUTPUT_CHARS``) and only what is kept is examined for
    hidden characters: a server's huge answer must not cost time or memory in proportion to it.
    """
    parts = [_block_text(block) for block in result.content]
    structured = result.structured_content
    has_text = any(isinstance(b, types.TextContent) for b in result.content)
    huge_structure = structured is not None and _larger_than(structured, MAX_OUTPUT_CHARS)
    if structured is not None and not has_text:
        parts.append(_structured_json(structured))
    text, total = _capped_text(parts, MAX_OUTPUT_CHARS)
    # Hidden characters in a result are not stripped (it is data) but they are counted
    # (every one of them is outside ASCII, so plain ASCII text needs no look).
    hidden = [] if text.isascii() else strip_hidden(text)[1]
    metadata: dict[str, Any] = {"mcp_server": server, "mcp_tool": tool}
    if hidden:
        metadata["hidden_characters"] = len(hidden)
    if structured is not None:
        # Kept for the UI only while it is about as small as the text the model may see.
        if huge_structure:
            metadata["structured_content_dropped"] = True
        else:
            metadata["structured_content"] = structured
    if total > MAX_OUTPUT_CHARS:
        metadata["truncated_from_chars"] = total
        text += f"\n[output cut at {MAX_OUTPUT_CHARS} of {total} characters]"
    if result.is_error:
        return ToolResult.fail(ErrorKind.BUSINESS, text or f"{server}/{tool} reported an error", metadata=metadata)
    return ToolResult.ok(text, metadata=metadata)


def with_planted(result: ToolResult, planted: tuple[Planted, ...], domains: tuple[str, ...] = (),
                 folder: str = "", recorded: frozenset[Planted] = frozenset()) -> ToolResult:
    """``result`` of a sandboxed server working in a folder the person chose, with what the check
    after the call put aside: on its card (the ``sandbox`` facts a command's card shows), in words
    for the model, and typed for the audit log (``folder``: the server's, the entries' paths are
    relative to it; not those ``recorded`` already, in the server's own row as it stopped).
    Unchanged when nothing was found."""
    if not planted:
        return result
    facts = {"sandboxed": True, "server": True, "domains": list(domains), "planted": [p.to_json() for p in planted]}
    # Named up to a bound, with the total: a server that plants thousands of files must not flood the model.
    told = named_and_counted(planted, lambda p: p.english)
    note = ("\n[sandbox] blocked: the server left files in its folder that make a program run code later "
            f"(git hooks or configuration, editor or shell start-up files): {told}. "
            "They were moved out of the folder; do not try to work around this.")
    metadata = {**result.metadata, "sandbox": facts}
    audited = tuple(p for p in planted if p not in recorded)
    if result.success:
        return replace(result, output=result.output + note, metadata=metadata, planted=audited, planted_in=folder)
    return replace(result, error=result.error + note, metadata=metadata, planted=audited, planted_in=folder)
