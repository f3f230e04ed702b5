"""Start a stdio MCP server in the command sandbox (``ServerConfig.sandbox``).

The server gets its own folder writable (its configured ``cwd``, or a folder of its own under
Echo Desk's data folder), the rest of the disk read-only, the secret folders and Echo Desk's own
folders hidden, no network (or, with its own allowed domains, those through the same proxy and
forwarder as ``run_command``), and the environment allow-list plus its own configured variables.
Where the sandbox cannot run, the server is not started: it never runs unsandboxed silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from echo_desk import sandbox
from echo_desk.mcp.config import ServerConfig
from echo_desk.sandbox.domains import DomainRule, parse_rules
from echo_desk.sandbox.proxy import DomainProxy, RelayListener
from echo_desk.store import paths
from echo_desk.store.private import private_dir

#: Builds a server's proxy from its rules (tests give it a resolver mapping a test name to loopback).
make_proxy: Callable[[tuple[DomainRule, ...]], DomainProxy] = DomainProxy


def network_for(cfg: ServerConfig) -> RelayListener | None:
    """The proxy (listening on a private Unix socket) for a sandboxed server with allowed
    domains, on the running loop; ``None`` without domains (no network). Close it when the
    server's connection ends."""
    if not (cfg.sandbox and cfg.allowed_domains):
        return None
    return RelayListener(make_proxy(parse_rules(cfg.allowed_domains)))


class SandboxUnavailableError(RuntimeError):
    """The server is set to run in the sandbox, and the sandbox cannot run here."""


def server_folder(name: str) -> Path:
    """The writable folder of a sandboxed server without a ``cwd``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64] or "server"
    private_dir(paths.data_dir() / "mcp-servers")
    return private_dir(paths.data_dir() / "mcp-servers" / safe)


def contained(cfg: ServerConfig, env: dict[str, str],
              relay_path: Path | None = None) -> tuple[str, list[str], dict[str, str]]:
    """``(command, args, env)`` that start ``cfg`` inside the sandbox. With allowed domains,
    ``relay_path`` is the Unix socket of the server's proxy (``network_for``)."""
    found = sandbox.availability()
    if not found.available or found.bwrap is None:
        raise SandboxUnavailableError(
            f"{cfg.name} is set to run in the sandbox, which is unavailable here: {found.english()} "
            "Turn this server's sandbox off to run it with all your rights.")
    folder = Path(cfg.cwd).expanduser() if cfg.cwd else server_folder(cfg.name)
    spec = sandbox.SandboxSpec(writable=(folder,), cwd=folder,
                               hidden=(paths.config_dir(), paths.data_dir(), paths.cache_dir()),
                               runs_from=(cfg.command, *cfg.args),
                               # A server runs until stopped and nothing here sees it end, so no
                               # placeholders (they would stay): protected paths missing in its
                               # folder are not covered (docs/sandbox.md).
                               guard_missing=False, check_after=False,
                               proxied=relay_path is not None)
    launch = sandbox.prepare(spec, [cfg.command, *cfg.args], found.bwrap, own_env=env,
                             seccomp_file=paths.cache_dir() / "sandbox" / "seccomp.bpf", relay_path=relay_path)
    return launch.argv[0], launch.argv[1:], launch.env
