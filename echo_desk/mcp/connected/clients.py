"""The MCP clients Echo Desk knows, where each keeps its servers and in which format.

Formats, as each client documents them (checked against the clients' own docs):

- **Claude Code** — ``~/.claude.json``: user-scope servers in the top-level ``mcpServers``,
  local-scope ones under ``projects["<folder>"].mcpServers``; a project's shared ``.mcp.json``
  uses ``mcpServers`` too. An entry is ``{"type": "stdio", "command", "args", "env"}`` or
  ``{"type": "http" | "sse", "url", "headers"}`` (``type`` may be left out for stdio); values
  may use ``${VAR}`` / ``${VAR:-default}`` expansion (code.claude.com/docs/en/mcp).
- **Claude Desktop** — ``claude_desktop_config.json`` (Linux ``~/.config/Claude``, macOS
  ``~/Library/Application Support/Claude``, Windows ``%APPDATA%\\Claude``): ``mcpServers`` of
  ``{"command", "args", "env"}`` (modelcontextprotocol.io quickstart).
- **Cursor** — ``~/.cursor/mcp.json`` (global; a project's ``.cursor/mcp.json``): ``mcpServers``
  with ``command``/``args``/``env``/``envFile`` or ``url``/``headers``; ``${env:NAME}`` and other
  ``${…}`` interpolation (cursor.com/docs/mcp).
- **VS Code** — the user profile's ``mcp.json`` (Linux ``~/.config/Code/User/mcp.json``) with
  ``servers`` (``type`` required: ``stdio`` | ``http`` | ``sse``) and ``inputs``; ``${input:id}``
  and ``${env:NAME}`` variables; the older ``settings.json`` ``"mcp": {"servers": …}``. Both are
  JSON with comments (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
- **goose** — ``~/.config/goose/config.yaml`` (Windows ``%APPDATA%\\Block\\goose\\config``):
  ``extensions`` keyed by name; ``type: stdio`` with ``cmd``/``args``/``envs``/``env_keys``,
  ``type: streamable_http`` (or the older ``sse``) with ``uri``/``headers``; ``builtin`` and
  ``platform`` extensions are goose's own, not MCP servers (goose docs, guides/config-files).
- **Windsurf** — ``~/.codeium/windsurf/mcp_config.json``: ``mcpServers`` like Claude Desktop's,
  remote ones with ``serverUrl`` (or ``url``) and ``headers``; ``${env:NAME}`` interpolation
  (docs.windsurf.com/windsurf/cascade/mcp).
- **Zed** — ``~/.config/zed/settings.json`` (JSON with comments): ``context_servers`` of
  ``{"source": "custom", "command", "args", "env"}``, the older ``{"command": {"path", "args",
  "env"}}``, remote ``{"url", "headers"}``, and ``{"source": "extension"}`` entries that a Zed
  extension runs itself (zed.dev/docs/ai/mcp).
"""

from __future__ import annotations

import enum
import errno
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.common.client_names import KNOWN_CLIENTS
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred

#: The name of Echo Desk's entry in a client's server list.
ENTRY_NAME = "echo-desk"
#: ``${…}`` interpolation the clients expand themselves (env, inputs, workspace folders).
_INTERPOLATION = re.compile(r"\$\{[^}]*\}")
_VSCODE_INPUT = re.compile(r"\$\{input:[^}]+\}")


class Format(enum.StrEnum):
    JSON = "json"
    #: JSON with ``//`` and ``/* */`` comments and trailing commas (VS Code, Zed).
    JSONC = "jsonc"
    YAML = "yaml"


class Dialect(enum.StrEnum):
    """How a client spells one server entry."""

    MCP_SERVERS = "mcpServers"  # Claude Desktop, Cursor, Claude Code
    WINDSURF = "windsurf"
    VSCODE = "vscode"
    ZED = "zed"
    GOOSE = "goose"


class Skip(Exception):
    """A server that cannot move behind Echo Desk: it stays in the client's file, with why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotAServer(Exception):
    """An entry that is no MCP server (a goose built-in extension): left alone, not counted."""


@dataclass(frozen=True, kw_only=True)
class Location:
    """One list of servers in one file of one client."""

    client: str
    path: Path
    format: Format
    #: Keys from the document's top to the server list (``("mcp", "servers")``).
    key_path: tuple[str, ...]
    dialect: Dialect
    #: Where the list applies: ``user`` or the project folder it belongs to.
    scope: str = "user"
    #: Why Echo Desk lists but never rewrites it (empty: it may).
    read_only: str = ""

    @property
    def id(self) -> str:
        """Stable for one list: the client, the file and the keys."""
        return "|".join((self.client, str(self.path), *self.key_path))


@dataclass(frozen=True, kw_only=True)
class Client:
    name: str
    #: The client's own lists of servers on this machine (the first is where Echo Desk's entry goes).
    locations: Callable[[Path, str], list[Location]]
    #: A folder only the client makes: its presence says the client is installed, even before
    #: it has a config file (``None``: the folder of its first file).
    marker: Callable[[Path, str], Path] | None = None

    @property
    def title(self) -> str:
        return KNOWN_CLIENTS[self.name]

    def installed(self, home: Path, platform: str) -> bool:
        if self.marker is not None:
            return self.marker(home, platform).is_dir()
        found = self.locations(home, platform)
        return bool(found) and found[0].path.parent.is_dir()


def _config_home(home: Path, platform: str) -> Path:
    if platform.startswith("linux"):
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        if xdg and Path(xdg).is_absolute():
            return Path(xdg)
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    return home / ".config"


def _one(client: str, path: Path, fmt: Format, keys: tuple[str, ...], dialect: Dialect) -> Location:
    return Location(client=client, path=path, format=fmt, key_path=keys, dialect=dialect)


#: A quick look reads no more than the plan does (``plan.MAX_FILE_BYTES``).
_QUICK_LOOK_BYTES = 64 * 1024 * 1024


def _claude_code(home: Path, platform: str) -> list[Location]:
    path = home / ".claude.json"
    found = [_one("claude-code", path, Format.JSON, ("mcpServers",), Dialect.MCP_SERVERS)]
    # Local-scope servers live in the same file, per project folder; a project's .mcp.json is
    # usually checked in and shared: listed, never rewritten.
    for folder in _claude_code_projects(path):
        found.append(Location(client="claude-code", path=path, format=Format.JSON,
                              key_path=("projects", folder, "mcpServers"), dialect=Dialect.MCP_SERVERS, scope=folder))
        shared = Path(folder) / ".mcp.json"
        if shared.is_file():
            found.append(Location(client="claude-code", path=shared, format=Format.JSON, key_path=("mcpServers",),
                                  dialect=Dialect.MCP_SERVERS, scope=folder,
                                  read_only=deferred(N_("a project's .mcp.json is usually shared with others "
                                                        "through version control; Echo Desk does not rewrite it"))))
    return found


class NotARegularFile(OSError):
    """A named pipe, a device or a folder where a client's config file should be."""


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (following links). A named pipe
    or a device is refused at once (``NotARegularFile``): reading one blocks for ever or never
    ends. ``FileNotFoundError`` when it does not exist."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file")
        return f.read(limit + 1)


def _claude_code_projects(path: Path) -> list[str]:
    """The project folders of ``~/.claude.json`` that have servers of their own (a quick look:
    an unreadable file is reported by the detection of its user-scope list)."""

    try:
        data = read_regular(path, _QUICK_LOOK_BYTES)
        if len(data) > _QUICK_LOOK_BYTES:
            return []
        document = read_json(data.decode("utf-8"))
    except (OSError, ValueError):
        return []
    projects = document.get("projects") if isinstance(document, dict) else None
    if not isinstance(projects, dict):
        return []
    return sorted(str(folder) for folder, entry in projects.items()
                  if isinstance(entry, dict) and entry.get("mcpServers"))


def _claude_desktop(home: Path, platform: str) -> list[Location]:
    path = _config_home(home, platform) / "Claude" / "claude_desktop_config.json"
    return [_one("claude-desktop", path, Format.JSON, ("mcpServers",), Dialect.MCP_SERVERS)]


def _cursor(home: Path, platform: str) -> list[Location]:
    return [_one("cursor", home / ".cursor" / "mcp.json", Format.JSON, ("mcpServers",), Dialect.MCP_SERVERS)]


def _vscode(home: Path, platform: str) -> list[Location]:
    user = _config_home(home, platform) / "Code" / "User"
    return [
        _one("vscode", user / "mcp.json", Format.JSONC, ("servers",), Dialect.VSCODE),
        _one("vscode", user / "settings.json", Format.JSONC, ("mcp", "servers"), Dialect.VSCODE),
    ]


def _goose(home: Path, platform: str) -> list[Location]:
    if platform == "win32":
        path = _config_home(home, platform) / "Block" / "goose" / "config" / "config.yaml"
    else:  # ~/.config on macOS too (goose docs)
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() and platform.startswith("linux") else home / ".config"
        path = base / "goose" / "config.yaml"
    return [_one("goose", path, Format.YAML, ("extensions",), Dialect.GOOSE)]


def _windsurf(home: Path, platform: str) -> list[Location]:
    path = home / ".codeium" / "windsurf" / "mcp_config.json"
    return [_one("windsurf", path, Format.JSON, ("mcpServers",), Dialect.WINDSURF)]


def _zed(home: Path, platform: str) -> list[Location]:
    if platform == "win32":
        path = _config_home(home, platform) / "Zed" / "settings.json"
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() and platform.startswith("linux") else home / ".config"
        path = base / "zed" / "settings.json"
    return [_one("zed", path, Format.JSONC, ("context_servers",), Dialect.ZED)]


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client(name="claude-code", locations=_claude_code, marker=lambda home, _p: home / ".claude"),
        Client(name="cursor", locations=_cursor),
        Client(name="vscode", locations=_vscode),
        Client(name="claude-desktop", locations=_claude_desktop),
        Client(name="goose", locations=_goose),
        Client(name="windsurf", locations=_windsurf),
        Client(name="zed", locations=_zed),
    )
}


def locations_of(client: str, *, home: Path | None = None, platform: str | None = None) -> list[Location]:
    return CLIENTS[client].locations(home or Path.home(), platform or sys.platform)


# -- one entry: the client's spelling <-> an mcp.json entry -----------------------------------


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _no_interpolation(raw: dict[str, Any], *, inputs_allowed: bool = False) -> None:
    """``Skip`` an entry that uses the client's own ``${…}`` expansion. VS Code's ``${input:id}``
    is allowed in ``env`` and ``headers`` values: those become keyring references to fill in."""
    for key, value in raw.items():
        for text in _strings(value):
            if inputs_allowed and key in ("env", "headers"):
                text = _VSCODE_INPUT.sub("", text)
            found = _INTERPOLATION.findall(text)
            if found:
                raise Skip(deferred(N_("uses {found}, which the client expands itself and Echo Desk does not"),
                                    found=found[0]))


def to_echo_desk(dialect: Dialect, raw: Any) -> dict[str, Any]:
    """The ``mcp.json`` entry for one of the client's entries; ``Skip`` with why when it cannot
    move, ``NotAServer`` for an entry that is no MCP server."""
    if not isinstance(raw, dict):
        raise Skip(deferred(N_("the entry is not an object")))
    if dialect is Dialect.GOOSE:
        return _from_goose(raw)
    if "envFile" in raw:
        raise Skip(deferred(N_("uses an envFile, which Echo Desk does not read")))
    if dialect is Dialect.ZED:
        return _from_zed(raw)
    _no_interpolation(raw, inputs_allowed=dialect is Dialect.VSCODE)
    out = {k: v for k, v in raw.items() if k in ("command", "args", "env", "cwd", "url", "headers", "type")}
    if dialect is Dialect.WINDSURF and "serverUrl" in raw and "url" not in raw:
        out["url"] = raw["serverUrl"]
    if out.get("type") == "stdio":
        del out["type"]
    if raw.get("disabled") is True:
        out["enabled"] = False
    return out


def _from_zed(raw: dict[str, Any]) -> dict[str, Any]:
    if raw.get("source") == "extension":
        raise Skip(deferred(N_("provided by a Zed extension, which Zed runs itself")))
    _no_interpolation(raw)
    command = raw.get("command")
    if isinstance(command, dict):  # the older {"command": {"path", "args", "env"}}
        out: dict[str, Any] = {"command": command.get("path"), "args": command.get("args", []),
                               "env": command.get("env") or {}}
    elif "url" in raw:
        out = {"url": raw["url"], "headers": raw.get("headers") or {}}
    else:
        out = {"command": command, "args": raw.get("args", []), "env": raw.get("env") or {}}
    if raw.get("enabled") is False:
        out["enabled"] = False
    return out


def _from_goose(raw: dict[str, Any]) -> dict[str, Any]:
    kind = raw.get("type")
    if kind in ("builtin", "platform", "frontend", "inline_python"):
        raise NotAServer(kind)
    _no_interpolation(raw)
    if raw.get("env_keys"):
        raise Skip(deferred(N_("its secrets (env_keys) are kept by goose, which Echo Desk cannot read")))
    out: dict[str, Any]
    if kind == "stdio":
        out = {"command": raw.get("cmd"), "args": raw.get("args") or [], "env": raw.get("envs") or {}}
    elif kind in ("streamable_http", "sse"):
        out = {"type": "http" if kind == "streamable_http" else "sse", "url": raw.get("uri"),
               "headers": raw.get("headers") or {}}
    else:
        raise Skip(deferred(N_("an extension type Echo Desk does not know")))
    timeout = raw.get("timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        out["timeout"] = float(timeout)
    if raw.get("enabled") is False:
        out["enabled"] = False
    return out


def gateway_entry(dialect: Dialect, client: str, command: list[str]) -> dict[str, Any]:
    """Echo Desk's one entry in the client's own spelling: ``command[0]`` runs
    ``command[1:] + ["gateway", "--client", client]``."""
    program, *lead = command
    args = [*lead, "gateway", "--client", client]
    if dialect is Dialect.VSCODE:
        return {"type": "stdio", "command": program, "args": args}
    if dialect is Dialect.ZED:
        return {"source": "custom", "command": program, "args": args, "env": {}}
    if dialect is Dialect.GOOSE:
        return {"name": ENTRY_NAME, "type": "stdio", "cmd": program, "args": args, "enabled": True,
                "envs": {}, "env_keys": [], "timeout": 300}
    return {"command": program, "args": args}


def is_gateway_entry(dialect: Dialect, raw: Any) -> bool:
    """Whether an entry starts Echo Desk's gateway (whatever path the program has)."""
    if not isinstance(raw, dict):
        return False
    command: Any = raw.get("cmd") if dialect is Dialect.GOOSE else raw.get("command")
    args: Any = raw.get("args")
    if isinstance(command, dict):
        command, args = command.get("path"), command.get("args")
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [Path(command).name, *[str(a) for a in args]]
    return "gateway" in words and (Path(command).name.startswith("echo-desk") or "echo_desk" in words)


def gateway_command() -> list[str]:
    """How a client starts the gateway: ``echo-desk`` when that is on PATH, else the absolute
    path of the installed script, else this Python with ``-m echo_desk``."""
    import shutil

    found = shutil.which("echo-desk")
    if found:
        return ["echo-desk"]
    beside = Path(sys.executable).with_name("echo-desk")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "echo_desk"]
