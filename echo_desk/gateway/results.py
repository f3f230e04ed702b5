"""An envelope in MCP form: a ``CallToolResult`` (as a JSON object) for the calling client.

Text first (what the client's model reads): the tool's content, or the error for a failed call
(``isError``), then the files changed, one line each (kind, absolute path, lines added and
removed). ``structuredContent``: an MCP server's own structured result when it gave one; for
Echo Desk's tools the envelope's facts (ok, error kind, file changes) as an object.
"""

from __future__ import annotations

from typing import Any

from echo_desk.agent.envelope import Envelope
from echo_desk.tools.results import FileChange


def line_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed by a unified diff (its ``+++``/``---`` headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def change_line(change: FileChange) -> str:
    added, removed = line_counts(change.diff)
    cut = " (diff cut)" if change.truncated else ""
    return f"{change.kind.value} {change.path} (+{added} -{removed}){cut}"


def summary(changes: tuple[FileChange, ...]) -> str:
    if not changes:
        return ""
    return "Files changed:\n" + "\n".join(f"  {change_line(c)}" for c in changes)


def to_mcp(envelope: Envelope) -> dict[str, Any]:
    """The ``CallToolResult`` for ``envelope``."""
    parts = [envelope.content] if envelope.ok else [envelope.model_error, envelope.content]
    parts.append(summary(envelope.file_changes))
    text = "\n\n".join(p for p in parts if p)
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": not envelope.ok}
    structured = envelope.metadata.get("structured_content")
    if envelope.ok and isinstance(structured, dict):
        result["structuredContent"] = structured
    elif "mcp_server" not in envelope.metadata:
        result["structuredContent"] = {
            "ok": envelope.ok,
            "error_kind": envelope.error_kind.value if envelope.error_kind else "",
            "file_changes": [
                {"path": c.path, "kind": c.kind.value, "added": a, "removed": r, "truncated": c.truncated}
                for c in envelope.file_changes for a, r in (line_counts(c.diff),)
            ],
        }
    return result


def error_result(message: str) -> dict[str, Any]:
    """A call that did not reach a tool (the app is gone, the request was malformed)."""
    return {"content": [{"type": "text", "text": message}], "isError": True}
