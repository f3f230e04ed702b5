"""Typed, versioned settings saved as JSON in the config folder.

Setting keys are attributes of these models, never strings scattered in widgets. Secrets
(API keys, passwords) are not here: they live in the keyring (``store.secrets``).

Several processes share the file: the app, the command line (``echo-desk mcp approve``,
``echo-desk ask``) and each client's ``echo-desk gateway`` when the app is not running. Each
change is applied to the file's latest content under a lock, so none is lost, and a process
sees another's saved change within ``RECHECK_SECONDS`` of reading its settings.
"""

from __future__ import annotations

import contextlib
import enum
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from echo_desk.common.file_cache import FileStamp, file_stamp, recently_written
from echo_desk.common.json_text import read_json
from echo_desk.i18n import Language
from echo_desk.store.private import changing_alone, private_dir, write_private
from echo_desk.tools.results import RiskLevel

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
SETTINGS_FILE = "settings.json"
#: How long ``SettingsStore.current`` trusts what it holds before it looks at the file again
#: (one ``stat``; the file is read only when another process saved it). Short enough that a
#: switch turned off in the command line holds for the app's next call; long enough that the
#: catalog, which reads the settings once per row, does not look at the file once per row.
RECHECK_SECONDS = 0.25


class ToolPolicy(enum.StrEnum):
    ASK = "ask"
    ALWAYS = "always"
    NEVER = "never"


class ToolSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    #: ``None`` follows the active capability profile.
    enabled: bool | None = None
    #: ``None`` follows the risk level's default (read: auto, write/exec: ask).
    policy: ToolPolicy | None = None
    #: Only for tools whose risk the person may lower (MCP tools start as ``exec``).
    risk_override: RiskLevel | None = None
    #: Hash of the definition the person approved, as an older version kept it (per registry
    #: name). Read once to carry it over: pins now live in ``Settings.mcp_pins``.
    pinned_hash: str | None = None
    #: For an MCP tool: whose entry this is (server name, its configuration's fingerprint and
    #: the tool's own name; see ``echo_desk.mcp.toolset.tool_identity``). Another tool that
    #: ends up with the same registry name does not inherit it. ``None``: not yet claimed
    #: (entries written before this field existed are claimed by the first tool seen).
    owner: str | None = None


ALL_CAPABILITIES = "*"

DEFAULT_PROFILES: dict[str, list[str]] = {
    "read-only": ["basic", "files.read", "web", "ask", "todos", "database.read"],
    "coding": ["basic", "files.read", "files.write", "shell", "ask", "todos", "web", "database.read"],
    "everything": [ALL_CAPABILITIES],
}


class ProviderKind(enum.StrEnum):
    LOCAL = "local"
    OLLAMA = "ollama"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"


class ProviderSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    kind: ProviderKind = ProviderKind.LOCAL
    base_url: str = ""
    model: str = ""
    #: Name of the keyring entry holding the API key (never the key itself).
    api_key_ref: str = ""


class LocalModelSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    #: A ``.gguf`` file chosen by the person; empty means the default downloaded model.
    model_path: str = ""
    context_size: int = 8192
    profile: str = "qwen2.5-coder-tools"


class DatabaseConnection(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    kind: Literal["postgres", "sqlite"]
    #: No password in here: it lives in the keyring under ``database.<name>.password``.
    dsn: str = ""
    write_mode: bool = False


class SandboxMode(enum.StrEnum):
    """How ``run_command`` runs in a workspace (docs/sandbox.md)."""

    #: In the sandbox where it works; where it does not, every command is asked about.
    SANDBOXED = "sandboxed"
    #: Never sandboxed, and every command is asked about.
    ASK_UNSANDBOXED = "ask_unsandboxed"
    #: Never sandboxed; the tool's approval policy applies as for any tool.
    OFF = "off"


class WorkspaceSandbox(BaseModel):
    model_config = ConfigDict(extra="ignore")

    mode: SandboxMode = SandboxMode.SANDBOXED
    # "Run sandboxed commands without asking" is not stored here: it is an ``allow-in-sandbox``
    # permission rule (echo_desk.agent.permissions.sandbox_toggle). An older file's
    # ``run_without_asking`` is ignored: that choice asks again until the box is ticked anew.
    #: ``example.com`` / ``*.example.com`` reachable through the sandbox's proxy (none: no network).
    allowed_domains: list[str] = Field(default_factory=list)


class SandboxSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    #: For a workspace without its own entry.
    default: WorkspaceSandbox = Field(default_factory=WorkspaceSandbox)
    #: Keyed by the workspace folder's absolute path.
    workspaces: dict[str, WorkspaceSandbox] = Field(default_factory=dict)
    #: Paths the person added: hidden from sandboxed commands, even for reading.
    hidden_paths: list[str] = Field(default_factory=list)
    #: Paths inside a workspace (``tools/run.sh``, ``Makefile``, ``.tool/``) the person added to
    #: what makes a program run code (``echo_desk.sandbox.runs_code``): read-only for sandboxed
    #: commands, put back after them, and always asked about by the file tools.
    protected_paths: list[str] = Field(default_factory=list)

    def for_workspace(self, workspace: Path | str | None) -> WorkspaceSandbox:
        if workspace is None:
            return self.default
        return self.workspaces.get(str(workspace)) or self.default


class GatewayClient(BaseModel):
    """What one MCP client (Cursor, Claude Code, …) sees through ``echo-desk gateway``.

    Made with these safe defaults the first time the client connects: the MCP servers' tools as
    the catalog has them, none of Echo Desk's own. Keyed in ``GatewaySettings.clients`` by the
    name the client is started with (``--client NAME``, see ``echo_desk.gateway.clients``).
    """

    model_config = ConfigDict(extra="ignore")

    #: Echo Desk's own tools (file edits with review and undo, ``run_command`` in the sandbox,
    #: the database tools), for this client too. Off until the person switches them on.
    builtins: bool = False
    #: With ``builtins``: ``db_execute`` as well (the database tools are read-only by default).
    database_writes: bool = False
    #: Tools (registry names) this client does not see, on top of the catalog's own switches.
    hidden_tools: list[str] = Field(default_factory=list)
    #: When it first connected (seconds since the epoch); 0: added by hand, never connected.
    first_seen: float = 0.0


#: The loopback port of the optional streamable HTTP gateway (``GatewaySettings.http_port``).
DEFAULT_GATEWAY_HTTP_PORT = 41730


class GatewaySettings(BaseModel):
    """Echo Desk as an MCP server for other clients (``docs/gateway.md``)."""

    model_config = ConfigDict(extra="ignore")

    clients: dict[str, GatewayClient] = Field(default_factory=dict)
    #: Streamable HTTP on 127.0.0.1 for clients that take a URL; off by default. Each client then
    #: needs its bearer token (kept in the keyring, never here).
    http_enabled: bool = False
    http_port: int = Field(default=DEFAULT_GATEWAY_HTTP_PORT, ge=1024, le=65535)

    def client(self, name: str) -> GatewayClient:
        """The profile of ``name`` (the safe defaults when it has none yet)."""
        return self.clients.get(name) or GatewayClient()


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    schema_version: int = SCHEMA_VERSION
    #: ``None`` follows the system locale.
    language: Language | None = None
    #: Colours: ``system`` follows the desktop's light/dark scheme.
    theme: Literal["system", "light", "dark"] = "system"
    active_profile: str = "everything"
    profiles: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in DEFAULT_PROFILES.items()})
    tools: dict[str, ToolSettings] = Field(default_factory=dict)
    #: Sources switched off as a group: ``builtin``, ``plugin``, ``mcp:<server>``.
    disabled_sources: list[str] = Field(default_factory=list)
    active_provider: str = "local"
    providers: dict[str, ProviderSettings] = Field(
        default_factory=lambda: {"local": ProviderSettings(kind=ProviderKind.LOCAL)}
    )
    local_model: LocalModelSettings = Field(default_factory=LocalModelSettings)
    databases: list[DatabaseConnection] = Field(default_factory=list)
    #: Fingerprints (command+args+env names+URL) of MCP servers the person approved to start.
    mcp_approved: dict[str, str] = Field(default_factory=dict)
    #: MCP tool pins: ``"<server fingerprint>/<tool's own name>"`` -> hash of the definition the
    #: person approved (``echo_desk.mcp.toolset.pin_key``). Keyed by what the server runs, not by
    #: its name: renaming a server keeps its pins; a changed tool is blocked until re-approved.
    mcp_pins: dict[str, str] = Field(default_factory=dict)
    breaker_threshold: int = 3
    breaker_cooldown_seconds: float = 30.0
    max_turns: int = 25
    #: Undo of tool writes: files larger than this are noted "not restorable" instead of kept.
    undo_max_file_bytes: int = Field(default=10 * 1024 * 1024, ge=0)
    #: Previous contents older than this many days are forgotten (and their blobs removed).
    undo_keep_days: float = Field(default=30.0, gt=0)
    #: Kept previous contents and Echo Desk's trash together stay under this (oldest go first).
    undo_max_total_bytes: int = Field(default=2 * 1024 * 1024 * 1024, ge=0)
    recent_workspaces: list[str] = Field(default_factory=list)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    #: Other MCP clients calling through Echo Desk: what each sees, the HTTP option.
    gateway: GatewaySettings = Field(default_factory=GatewaySettings)

    def tool(self, name: str) -> ToolSettings:
        return self.tools.get(name) or ToolSettings()


def migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older settings document up to ``SCHEMA_VERSION``."""
    version = int(raw.get("schema_version", 0))
    if version < 1:
        # Version 0 kept a flat list of disabled tool names.
        disabled = raw.pop("disabled_tools", [])
        tools = raw.setdefault("tools", {})
        for name in disabled:
            tools.setdefault(name, {})["enabled"] = False
    raw["schema_version"] = SCHEMA_VERSION
    return raw


def write_atomically(path: Path, data: bytes) -> None:
    """Temp file in the same folder, fsync, rename: a crash leaves the old or the new file. For
    Echo Desk's own files (settings, window, MCP servers and pins): 0600 in a 0700 folder."""
    private_dir(path.parent)
    write_private(path, data)


class SettingsStore:
    """Holds the live settings, saves every change, and tells subscribers.

    The engine reads ``store.current`` on every call, so a toggle applies at once, also one
    saved by another process (see the module's note).
    """

    def __init__(self, path: Path, *, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._listeners: list[Callable[[Settings], None]] = []
        self._recheck_seconds = recheck_seconds
        self._checked_at = time.monotonic()
        #: The file as this store last read or wrote it.
        self._stamp: FileStamp | None = None
        #: The file holds what cannot be read as settings (edited by hand since it was loaded):
        #: kept aside before this store next writes.
        self._unreadable_on_disk = False
        self._holding_file = False
        self._report_failure: Callable[[OSError], None] | None = None
        #: Bumped whenever ``current`` becomes other settings (a change here or read from the
        #: file): what was worked out from one snapshot holds while it stays.
        self.generation = 0
        self._settings = self._load()

    @classmethod
    def in_dir(cls, folder: Path) -> SettingsStore:
        return cls(folder / SETTINGS_FILE)

    @classmethod
    def in_memory(cls, settings: Settings | None = None) -> SettingsStore:
        store = cls.__new__(cls)
        store.path = None  # type: ignore[assignment]
        store._lock = threading.RLock()
        store._listeners = []
        store._report_failure = None
        store._settings = settings or Settings()
        store.generation = 0
        return store

    def _load(self) -> Settings:
        self._stamp = file_stamp(self.path)
        loaded = self._read()
        if loaded is None:
            log.warning("kept it aside as %s; starting from defaults", self.path.with_suffix(".broken.json").name)
            self._keep_broken_copy()
            self._stamp = file_stamp(self.path)
            return Settings()
        return loaded

    def _read(self) -> Settings | None:
        """The file's settings: defaults when there is no file, ``None`` when it cannot be read
        as settings."""
        try:
            raw = read_json(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Settings()
        except (OSError, json.JSONDecodeError) as exc:
            log.warning("settings file %s unreadable (%s)", self.path, exc)
            return None
        try:
            return Settings.model_validate(migrate(raw))
        except ValidationError as exc:
            log.warning("settings file %s invalid (%s)", self.path, exc)
            return None

    def _keep_broken_copy(self) -> None:
        # Never silently overwrite what the person had: keep it beside the new file.
        try:
            self.path.replace(self.path.with_suffix(".broken.json"))
        except OSError:
            pass

    @property
    def current(self) -> Settings:
        if self.path is not None and time.monotonic() - self._checked_at >= self._recheck_seconds:
            # Never wait here for another thread's save (it writes and syncs the file): the
            # settings it is saving are the ones to read next time anyway.
            self.refresh(wait=False)
        return self._settings

    def refresh(self, *, wait: bool = True) -> bool:
        """Read the file again if another process saved it since this store last did; tell the
        subscribers when that changed the settings (and say so: ``True``). Without ``wait``,
        nothing is done while another thread is changing the settings."""
        if self.path is None or not self._lock.acquire(blocking=wait):
            return False
        try:
            changed = self._take_saved_change()
            new, listeners = self._settings, list(self._listeners)
        finally:
            self._lock.release()
        if changed:
            for listener in listeners:
                listener(new)
        return changed

    def _take_saved_change(self, *, read_anyway: bool = False) -> bool:
        """With ``_lock`` held: the file's settings if they changed on disk (read when its stamp
        changed or is too recent to trust, or ``read_anyway``). A file that cannot be read is not
        taken (what this store holds stays in force) and is kept aside on the next save; a
        removed file is written again on the next save."""
        self._checked_at = time.monotonic()
        stamp = file_stamp(self.path)
        if stamp == self._stamp and not read_anyway and not recently_written(stamp):
            return False
        self._stamp = stamp
        if stamp is None:
            return False
        loaded = self._read()
        self._unreadable_on_disk = loaded is None
        if loaded is None or loaded == self._settings:
            return False
        self._settings = loaded
        self.generation += 1
        return True

    def update(self, change: Callable[[Settings], None]) -> Settings:
        """Apply ``change`` to a copy of the latest settings (another process's saved change
        included), validate, save, then notify. Returns the new settings.

        A change that cannot be saved (a full disk, a folder that cannot be written) is not
        made: ``OSError`` is raised, or, where ``report_save_failures`` was called (the app), the
        report gets it and the unchanged settings are returned. Either way the subscribers hear
        the settings as they are, so a switch the person flipped is shown flipped back."""
        heard = False
        failed: OSError | None = None
        try:
            with self._alone():
                # Read under the file's lock whatever the stamp says: a save is rare, a lost one is not.
                heard = self.path is not None and self._take_saved_change(read_anyway=True)
                draft = self._settings.model_copy(deep=True)
                change(draft)
                new = Settings.model_validate(draft.model_dump())
                if self.path is not None:
                    if self._unreadable_on_disk:
                        self._keep_broken_copy()
                        self._unreadable_on_disk = False
                    write_atomically(self.path, new.model_dump_json(indent=2).encode("utf-8"))
                    self._stamp = file_stamp(self.path)
                self._settings = new
                self.generation += 1
                heard = True
        except OSError as exc:
            heard, failed = True, exc
            if self._report_failure is None:
                raise
        finally:
            if heard:
                now, listeners = self._settings, list(self._listeners)
                for listener in listeners:
                    listener(now)
        if failed is not None and self._report_failure is not None:
            self._report_failure(failed)
            return self._settings
        return new

    def report_save_failures(self, report: Callable[[OSError], None]) -> None:
        """Send a change that could not be saved to ``report`` instead of raising (the app tells
        the person; a page that saves on every click has nowhere to show an error itself)."""
        self._report_failure = report

    @contextlib.contextmanager
    def _alone(self) -> Iterator[None]:
        """This store's lock, and the file's, which other processes take to change it too. Held
        once per thread: a change that saves another change inside it must not wait for itself."""
        with self._lock:
            if self.path is None or self._holding_file:
                yield
                return
            with changing_alone(self.path):
                self._holding_file = True
                try:
                    yield
                finally:
                    self._holding_file = False

    def set_tool(self, name: str, **fields: Any) -> Settings:
        def change(s: Settings) -> None:
            current = s.tool(name).model_copy(update=fields)
            s.tools = {**s.tools, name: current}

        return self.update(change)

    def subscribe(self, listener: Callable[[Settings], None]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe
