"""The MCP clients Echo Desk knows by name: the gateway's dialogs, the Connected apps page and
``echo-desk gateway install`` all read this one list (the name a client's entry uses → the
product's own name)."""

from __future__ import annotations

KNOWN_CLIENTS: dict[str, str] = {
    "claude-code": "Claude Code",
    "claude-desktop": "Claude Desktop",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "goose": "goose",
    "windsurf": "Windsurf",
    "zed": "Zed",
}
