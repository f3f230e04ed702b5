from tests.mcp.connected.homes import home

__all__ = ["home"]
