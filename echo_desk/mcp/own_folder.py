"""The folder of its own a stdio MCP server works in when its configuration names none.

Without one, a server would work in whatever folder Echo Desk was started from — a workspace,
when Echo Desk was started from a terminal there — and ``npx -y <package>`` run there starts the
workspace's ``node_modules/<package>``, which a sandboxed command may have written. Its own
folder, under Echo Desk's data folder, is in no workspace, and the same at every start.
"""

from __future__ import annotations

import re
from pathlib import Path

from echo_desk.store import paths
from echo_desk.store.private import private_dir


def own_folder_of(name: str) -> Path:
    """Where the server named ``name`` works when it has no ``cwd`` (not made)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64] or "server"
    return paths.data_dir() / "mcp-servers" / safe


def server_folder(name: str) -> Path:
    """The server's own folder, made (private to the person) if it is not there yet."""
    private_dir(paths.data_dir() / "mcp-servers")
    return private_dir(own_folder_of(name))
