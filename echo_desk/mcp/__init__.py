"""MCP client: connection manager, ``MCPTool`` adapter, ``mcp.json`` and imports.

Qt-free. The app and the CLI call ``attach_mcp`` at start-up; the settings page reads
``McpManager.statuses()`` and subscribes to ``McpEvent``s.
"""

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
