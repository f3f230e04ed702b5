"""What the MCP layer tells the application: server states, approval requests, tool flags.

Plain frozen dataclasses, no Qt: the settings page and the CLI render them; events reach
them as callbacks (``McpManager.subscribe``), called on the manager's own thread, so a Qt
listener marshals to the UI thread itself.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from echo_desk.i18n import N_


class ServerState(enum.StrEnum):
    DISABLED = "disabled"
    AWAITING_APPROVAL = "awaiting_approval"
    STARTING = "starting"
    #: An HTTP server that asks the person to sign in (OAuth), or to consent to more.
    NEEDS_SIGN_IN = "needs_sign_in"
    #: The sign-in page is open in the browser; waiting for the person.
    SIGNING_IN = "signing_in"
    CONNECTED = "connected"
    #: Ended to be started again at once (new sandbox paths, the person's Restart): not an error.
    RESTARTING = "restarting"
    ERROR = "error"
    STOPPED = "stopped"


STATE_LABELS = {
    ServerState.DISABLED: N_("Disabled"),
    ServerState.AWAITING_APPROVAL: N_("Waiting for your approval to start"),
    ServerState.STARTING: N_("Starting"),
    ServerState.NEEDS_SIGN_IN: N_("Sign-in needed"),
    ServerState.SIGNING_IN: N_("Signing in…"),
    ServerState.CONNECTED: N_("Connected"),
    ServerState.RESTARTING: N_("Restarting"),
    ServerState.ERROR: N_("Error"),
    ServerState.STOPPED: N_("Stopped"),
}



class FlagKind(enum.StrEnum):
    """What a flag beside an MCP tool is about."""

    #: Invisible characters were removed from its definition.
    HIDDEN_CHARS = "hidden_chars"
    #: Its definition changed since it was approved: blocked until approved again.
    CHANGED = "changed"
    #: The server's behaviour hints (read-only, destructive…).
    ANNOTATION = "annotation"
    #: It looks like an attempt to steer the model (``echo_desk.mcp.integrity``).
    WARNING = "warning"

#: What a flag is about, as Settings › MCP servers and ``echo-desk mcp list`` say it.
FLAG_LABELS = {FlagKind.HIDDEN_CHARS: N_("Hidden characters"), FlagKind.CHANGED: N_("Changed"),
               FlagKind.ANNOTATION: N_("Hints"), FlagKind.WARNING: N_("Warning")}


@dataclass(frozen=True, kw_only=True)
class ToolFlag:
    """Something the catalog shows beside an MCP tool."""

    kind: FlagKind
    detail: str


@dataclass(frozen=True, kw_only=True)
class McpToolInfo:
    """One tool of a server, as the catalog shows it."""

    registry_name: str
    original_name: str
    title: str
    description: str
    annotations: dict[str, Any]
    ready: bool
    readiness: str
    flags: tuple[ToolFlag, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """A server's state for the settings page. ``stderr_tail`` holds its last stderr lines.

    ``detail`` is person-facing English; the fixed phrases are marked with ``N_`` (show them
    with ``_()``), details naming a server's own error text are shown as they are.
    """

    name: str
    state: ServerState
    transport: str
    detail: str = ""
    stderr_tail: tuple[str, ...] = ()
    tools: tuple[McpToolInfo, ...] = ()
    protocol_version: str = ""
    server_info: str = ""
    #: Tools the server offers that could not be represented (the server then registers none).
    problems: tuple[str, ...] = ()
    #: Who the connection is signed in with (OAuth), when it is.
    sign_in: SignInSummary | None = None
    #: The server's own icon (checked raster bytes, see ``echo_desk.mcp.icons``), once loaded.
    icon: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True, kw_only=True)
class SignInSummary:
    """An HTTP server's sign-in as its row shows it (never the tokens)."""

    issuer: str
    #: ``pasted`` | ``metadata_document`` | ``dynamic``
    registered_by: str
    scope: str = ""
    #: Unix time the access token ends (renewed before then when it can be).
    expires_at: float | None = None


@dataclass(frozen=True, kw_only=True)
class ServerStartRequest:
    """What the person approves before a server starts for the first time (or after a change).

    For stdio: the exact command line and the *names* of the environment variables set
    (values may be secrets and are not shown). For http/sse: the URL and header names.
    """

    server: str
    transport: str
    command: str = ""
    args: tuple[str, ...] = ()
    env_names: tuple[str, ...] = ()
    cwd: str = ""
    url: str = ""
    header_names: tuple[str, ...] = ()
    fingerprint: str
    #: The fingerprint approved before, if the config changed since (the dialog says so).
    previous_fingerprint: str | None = None
    summary: str = field(default="")

    @property
    def command_line(self) -> tuple[str, ...]:
        return (self.command, *self.args)


@runtime_checkable
class ServerStartApprover(Protocol):
    """Implemented by a Host that can ask the person to approve starting a server.

    The manager looks for this method on the host given to ``attach_mcp``; without it,
    a server waits in ``AWAITING_APPROVAL`` until ``McpManager.approve_start`` is called.
    """

    async def approve_server_start(self, request: ServerStartRequest) -> bool: ...


@dataclass(frozen=True, kw_only=True)
class McpEvent:
    """Sent to subscribers: ``status`` (a server's status changed), ``tools`` (its tools did)
    or ``list_changed`` (the server announced a change; a re-list follows)."""

    kind: str
    server: str
    status: ServerStatus


class ManagerClosed(RuntimeError):
    """The MCP manager is closing or closed (the app quits): no server is started any more, so a
    call or a read made meanwhile fails with this rather than starting one again."""
