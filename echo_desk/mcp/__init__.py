"""MCP client: connection manager, ``MCPTool`` adapter, ``mcp.json`` and imports.

Qt-free. The app and the CLI call ``attach_mcp`` at start-up; the settings page reads
``McpManager.statuses()`` and subscribes to ``McpEvent``s.

Each name loads with its own module on first use: the UI reads a status enum without loading
the MCP SDK, which comes with the manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from echo_desk.lazy_names import names_from_modules

if TYPE_CHECKING:
    from echo_desk.mcp.attach import attach_mcp
    from echo_desk.mcp.config import ConfigError, ServerConfig, load_config, save_config
    from echo_desk.mcp.importers import ImportAction, ImportItem, ImportPreview, apply_import, preview_import
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.status import (
        STATE_LABELS,
        McpEvent,
        McpToolInfo,
        ServerStartApprover,
        ServerStartRequest,
        ServerState,
        ServerStatus,
        ToolFlag,
    )
    from echo_desk.mcp.tool import MCPTool

_HOME = {
    "attach_mcp": "attach",
    "ConfigError": "config",
    "ServerConfig": "config",
    "load_config": "config",
    "save_config": "config",
    "ImportAction": "importers",
    "ImportItem": "importers",
    "ImportPreview": "importers",
    "apply_import": "importers",
    "preview_import": "importers",
    "McpManager": "manager",
    "McpEvent": "status",
    "McpToolInfo": "status",
    "STATE_LABELS": "status",
    "ServerStartApprover": "status",
    "ServerStartRequest": "status",
    "ServerState": "status",
    "ServerStatus": "status",
    "ToolFlag": "status",
    "MCPTool": "tool",
}

__all__ = [
    "STATE_LABELS",
    "ConfigError",
    "ImportAction",
    "ImportItem",
    "ImportPreview",
    "MCPTool",
    "McpEvent",
    "McpManager",
    "McpToolInfo",
    "ServerConfig",
    "ServerStartApprover",
    "ServerStartRequest",
    "ServerState",
    "ServerStatus",
    "ToolFlag",
    "apply_import",
    "attach_mcp",
    "load_config",
    "preview_import",
    "save_config",
]

__getattr__, __dir__ = names_from_modules(__name__, _HOME)
