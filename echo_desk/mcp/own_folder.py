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

A server in the sandbox has its own folder apart from the one it has outside, ``<name>@sandbox``
(no other name's folder has an ``@``). They were one: a sandboxed server, which may write only
there, could leave ``node_modules/.bin/<package>`` (or a module) that, once the person turned its
sandbox off, ``npx -y <package>`` started outside the sandbox with all the person's rights. A
sandboxed server's folder from before takes its new name at its first start (``server_folder``):
what it kept is kept, and none of it is left where the same server runs outside the sandbox.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from pathlib import Path

from echo_desk.store import paths
from echo_desk.store.private import private_dir

log = logging.getLogger(__name__)

_KEPT = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: Added to a sandboxed server's folder name; no ``folder_name`` has an ``@``.
_SANDBOXED = "@sandbox"


def own_folder_of(name: str, *, sandboxed: bool = False) -> Path:
    """Where the server named ``name`` works when it has no ``cwd`` (not made); in the sandbox,
    a folder apart (see the module doc)."""
    return paths.data_dir() / "mcp-servers" / (folder_name(name) + (_SANDBOXED if sandboxed else ""))


def folder_name(name: str) -> str:
    """The name of the server's own folder: ``name`` itself when that is a plain folder name,
    else a readable part and a hash of ``name`` (see the module doc)."""
    if _KEPT.fullmatch(name) and name.strip("."):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{re.sub(r'[^A-Za-z0-9_-]', '_', name)[:40]}+{digest}"


def server_folder(name: str, *, sandboxed: bool = False) -> Path:
    """The server's own folder, made (private to the person) if it is not there yet. In the
    sandbox, its folder from before it had one apart takes the new name, when there is no new one
    yet: a sandboxed server keeps what it kept, and none of it stays where the same server works
    outside the sandbox (which may then start without what it had there: none of it is lost)."""
    private_dir(paths.data_dir() / "mcp-servers")
    folder = own_folder_of(name, sandboxed=sandboxed)
    if sandboxed:
        shared = own_folder_of(name)
        # Once it has one apart, never again: what the server kept since outside the sandbox stays there.
        if not os.path.lexists(folder) and os.path.isdir(shared) and not os.path.islink(shared):
            try:
                os.rename(shared, folder)
            except OSError as exc:  # it starts in a new, empty folder; the old one is left as it is
                log.warning("MCP server %s: its folder from before (%s) could not take the sandbox's name: %s",
                            name, shared, exc)
            else:
                log.info("MCP server %s: its own folder in the sandbox is now %s", name, folder)
    return private_dir(folder)
