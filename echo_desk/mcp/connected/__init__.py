"""Protect my agents: move other MCP clients' servers behind Echo Desk, and undo it.

``detect()`` finds the clients on this machine (Claude Code, Cursor, VS Code, Claude Desktop,
goose, Windsurf, Zed) by their own config files; ``plan_install(location)`` shows the exact new
text and diff of a client's file; ``apply_install(plan)`` backs it up, imports its servers into
Echo Desk's mcp.json and leaves one Echo Desk entry in the client's file; ``plan_uninstall`` and
``apply_uninstall`` put it back. No Qt here: the settings page and the CLI use the same calls.
"""

from echo_desk.mcp.connected.apply import InstallOutcome, UninstallOutcome, apply_install, apply_uninstall
from echo_desk.mcp.connected.clients import CLIENTS, ENTRY_NAME, Location, gateway_command, locations_of
from echo_desk.mcp.connected.detect import STANDING_LABELS, ClientReport, LocationReport, Standing, detect
from echo_desk.mcp.connected.plan import InstallPlan, PlanError, UninstallPlan, plan_install, plan_uninstall
from echo_desk.mcp.connected.records import InstallRecord, Records

__all__ = [
    "CLIENTS", "ENTRY_NAME", "STANDING_LABELS", "ClientReport", "InstallOutcome", "InstallPlan", "InstallRecord",
    "Location", "LocationReport", "PlanError", "Records", "Standing", "UninstallOutcome", "UninstallPlan",
    "apply_install", "apply_uninstall", "detect", "gateway_command", "locations_of", "plan_install",
    "plan_uninstall",
]
