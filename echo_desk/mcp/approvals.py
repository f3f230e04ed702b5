"""First-start approval of a server, bound to the fingerprint of its configuration.

The fingerprint covers command, args, env *names*, cwd, URL and header names; the approval
is stored in ``Settings.mcp_approved[server]`` and any change of those makes it stale.
"""

from __future__ import annotations

import shlex

from echo_desk.i18n import N_, deferred
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.own_folder import own_folder_of
from echo_desk.mcp.status import ServerStartRequest
from echo_desk.store.settings import Settings, SettingsStore


def server_target(cfg: ServerConfig) -> str:
    """The full command line (stdio) or URL, as every dialog shows it: quoted as a shell would, so
    one argument holding a space never reads as two (nor two as one), as in the start dialog."""
    return shlex.join(cfg.command_line()) if cfg.is_stdio else cfg.url


def start_request(cfg: ServerConfig, settings: Settings) -> ServerStartRequest | None:
    """What the person must approve before ``cfg`` starts; ``None`` when already approved."""
    fingerprint = cfg.fingerprint()
    previous = settings.mcp_approved.get(cfg.name)
    if previous == fingerprint:
        return None
    return ServerStartRequest(
        server=cfg.name,
        transport=cfg.transport,
        command=cfg.command,
        args=cfg.args,
        env_names=tuple(sorted(cfg.env)),
        # Where it will really work: its own folder when the configuration names none.
        cwd=cfg.cwd or (str(own_folder_of(cfg.name, sandboxed=cfg.sandbox)) if cfg.is_stdio else ""),
        url=cfg.url,
        header_names=tuple(sorted(cfg.headers)),
        fingerprint=fingerprint,
        previous_fingerprint=previous,
        summary=deferred(N_("Start the MCP server “{name}”: {target}"), name=cfg.name, target=server_target(cfg)),
    )


def record_approval(store: SettingsStore, cfg: ServerConfig, fingerprint: str) -> bool:
    """Store the approval of exactly what the person saw; refused if the config changed since."""
    if cfg.fingerprint() != fingerprint:
        return False

    def change(s: Settings) -> None:
        s.mcp_approved = {**s.mcp_approved, cfg.name: fingerprint}

    store.update(change)
    return True


def revoke(store: SettingsStore, name: str) -> None:
    def change(s: Settings) -> None:
        s.mcp_approved = {k: v for k, v in s.mcp_approved.items() if k != name}

    store.update(change)
