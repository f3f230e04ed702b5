"""Start-up wiring: the runtime (app and CLI alike) calls ``attach_mcp`` once."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from echo_desk.mcp.connection import CONNECT_TIMEOUT
from echo_desk.mcp.manager import McpManager, RegistryLike
from echo_desk.mcp.owed_server_checks import OwedServerChecks
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ToolHost


async def attach_mcp(
    registry: RegistryLike,
    settings_store: SettingsStore,
    host: ToolHost | None = None,
    *,
    wait: bool = True,
    own_thread: bool = True,
    only: Collection[str] | None = None,
    handshake_timeout: float = CONNECT_TIMEOUT,
    owed: OwedServerChecks | None = None,
) -> McpManager:
    """Load ``mcp.json``, start the enabled and approved servers, register their tools.

    ``host`` answers elicitations outside a call and, if it has
    ``approve_server_start(request)`` (``ServerStartApprover``), first-start approvals;
    otherwise unapproved servers wait in ``awaiting_approval`` for the settings page.
    With ``wait=False`` the servers start in the background (the app); the CLI waits.
    ``own_thread=False`` keeps the sessions on the calling loop (the CLI: nothing to keep
    responsive, and each call saves two thread hops); the app gives them their own thread.
    ``only`` starts just those servers (the others stay stopped until a call needs them);
    ``handshake_timeout`` bounds each server's start and first listing.
    ``owed``: where a sandboxed server's check is kept as owed while it runs (``owed_server_checks``).
    Close the returned manager with ``await manager.aclose()`` at shutdown.
    """
    loop = None if own_thread else asyncio.get_running_loop()
    manager = McpManager(
        settings_store, registry=registry, host=host, loop=loop, handshake_timeout=handshake_timeout, owed=owed
    )
    if wait:
        await manager.start_all(only)
    else:
        manager.start_in_background()
    return manager
