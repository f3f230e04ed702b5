"""The settings window and its pages: General, Tools, Sandbox, Models, Databases, MCP,
Permissions."""
