"""The folder of its own a stdio MCP server works in when its configuration names none.

Without one, a server would work in whatever folder Echo Desk was started from — a workspace,
when Echo Desk was started from a terminal there — and ``npx -y <package>`` run there starts the
workspace's ``node_modules/<package>``, which a sandboxed command may have written. Its own
folder, under Echo Desk's data folder, is in no workspace, and the same at every start.

It is its own: no two names share one. A name of only ``A-Za-z0-9_.-`` is the folder's name (as
it always was); any other name (``文件``, ``a b``, ``..``) has its other characters made ``_`` and
``+`` and a hash of the whole name added, and no name kept as it is has a ``+``. (Those names
used to be cut down alone, so ``文件`` and ``网页`` both worked in ``__``, and ``..`` in the data
folder itself: a server could leave there a module another one then ran as its own.)
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from echo_desk.store import paths
from echo_desk.store.private import private_dir

_KEPT = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def own_folder_of(name: str) -> Path:
    """Where the server named ``name`` works when it has no ``cwd`` (not made)."""
    return paths.data_dir() / "mcp-servers" / folder_name(name)


def folder_name(name: str) -> str:
    """The name of the server's own folder: ``name`` itself when that is a plain folder name,
    else a readable part and a hash of ``name`` (see the module doc)."""
    if _KEPT.fullmatch(name) and name.strip("."):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', name)[:40]}+{digest}"


def server_folder(name: str) -> Path:
    """The server's own folder, made (private to the person) if it is not there yet."""
    private_dir(paths.data_dir() / "mcp-servers")
    return private_dir(own_folder_of(name))
