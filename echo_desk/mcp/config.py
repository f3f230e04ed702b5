"""``mcp.json``: the MCP servers a person configured, in the format other clients use.

::

    {"mcpServers": {
        "time":   {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
        "remote": {"type": "http", "url": "https://example.com/mcp",
                   "headers": {"Authorization": {"keyring": "mcp.remote.token"}}},
        "off":    {"command": "node", "args": ["x.js"], "enabled": false}}}

A value in ``env`` or ``headers`` may be ``{"keyring": "<name>"}``: it is read from the
secret store when the server starts and never written to the file.

The app, ``echo-desk mcp import`` and ``echo-desk gateway install`` all change the file: each
change goes through ``update_config``, which applies it to what the file holds now, one process
at a time, so a server another process added is never written away.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from echo_desk.common.file_cache import FileStamp, file_stamp, recently_written
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred
from echo_desk.mcp.oauth.origins import acceptable_origin
from echo_desk.sandbox.domains import BadDomain, parse_rules
from echo_desk.store.paths import config_dir
from echo_desk.store.private import changing_alone
from echo_desk.store.settings import write_atomically
from echo_desk.tools.secrets import secret_store

CONFIG_FILE = "mcp.json"
Transport = Literal["stdio", "http", "sse"]
#: A plain value, or a reference to the secret store.
Value = str | dict[str, str]


class ConfigError(ValueError):
    """``mcp.json`` (or an imported file) is not usable; the message says where and why, to the
    person (``deferred``: ``explain.explained`` shows it in the language of the moment)."""


class MissingSecretError(ConfigError):
    """A ``{"keyring": name}`` reference points at nothing in the secret store."""


@dataclass(frozen=True, kw_only=True)
class OAuthOptions:
    """An HTTP server's sign-in settings (``"oauth"`` in ``mcp.json``); all optional.

    ``client_id`` (and ``client_secret``, a confidential client's, best as a keyring reference)
    is a client registered with the server's authorization service by hand; ``client_metadata_url``
    an https URL serving Echo Desk's client ID metadata document; ``scope`` extra scopes to ask for.
    """

    client_id: str = ""
    client_secret: Value | None = None
    client_metadata_url: str = ""
    scope: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in ("client_id", "client_metadata_url", "scope"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.client_secret:
            out["client_secret"] = self.client_secret
        return out


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """One server entry. ``env``/``headers`` values are plain strings or keyring references."""

    name: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, Value] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, Value] = field(default_factory=dict)
    enabled: bool = True
    #: Seconds a single tool call may take before it is cancelled.
    timeout: float = 60.0
    #: A stdio server started in the command sandbox (docs/sandbox.md): its own folder writable,
    #: the rest read-only, secrets hidden, no network. Default on for servers imported from
    #: other apps; in ``mcp.json`` as ``"sandbox": true``.
    sandbox: bool = False
    #: With ``sandbox``: domains (``example.com``, ``*.example.com``) the server may reach through
    #: Echo Desk's proxy, as for sandboxed commands; none means no network. ``"allowed_domains"``.
    allowed_domains: tuple[str, ...] = ()
    #: HTTP/SSE: how to sign in when the server asks (OAuth); defaults find everything by discovery.
    oauth: OAuthOptions = field(default_factory=OAuthOptions)

    @property
    def is_stdio(self) -> bool:
        return self.transport == "stdio"

    def fingerprint(self) -> str:
        """What the person approves: command, args, env names (not values), cwd and URL.

        Secrets are left out on purpose (rotating a token needs no new approval); anything
        that changes what runs, or where we connect, changes the fingerprint.
        """
        material: dict[str, Any] = {
            "transport": self.transport,
            "command": self.command,
            "args": list(self.args),
            "env": sorted(self.env),
            "cwd": self.cwd,
            "url": self.url,
            "headers": sorted(self.headers),
        }
        if self.sandbox:
            # Leaving the sandbox changes what the server may do: a new approval.
            material["sandbox"] = True
        if self.allowed_domains:
            # More network is more reach: a new approval.
            material["allowed_domains"] = sorted(self.allowed_domains)
        text = json.dumps(material, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def command_line(self) -> list[str]:
        return [self.command, *self.args]

    def resolved_env(self) -> dict[str, str]:
        return _resolve(self.env, self.name, "env")

    def resolved_headers(self) -> dict[str, str]:
        return _resolve(self.headers, self.name, "headers")

    def resolved_client_secret(self) -> str | None:
        """The pasted client secret (read from the keyring when it is a reference)."""
        secret = self.oauth.client_secret
        if secret is None:
            return None
        return _resolve({"client_secret": secret}, self.name, "oauth")["client_secret"]

    def to_json(self) -> dict[str, Any]:
        """The ``mcp.json`` entry (keyring references stay references)."""
        out: dict[str, Any]
        if self.is_stdio:
            out = {"command": self.command, "args": list(self.args)}
            if self.env:
                out["env"] = dict(self.env)
            if self.cwd:
                out["cwd"] = self.cwd
            if self.sandbox:
                out["sandbox"] = True
            if self.allowed_domains:
                out["allowed_domains"] = list(self.allowed_domains)
        else:
            out = {"type": self.transport, "url": self.url}
            if self.headers:
                out["headers"] = dict(self.headers)
            if self.oauth.to_json():
                out["oauth"] = self.oauth.to_json()
        if not self.enabled:
            out["enabled"] = False
        if self.timeout != 60.0:
            out["timeout"] = self.timeout
        return out


def _resolve(values: dict[str, Value], server: str, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in values.items():
        if isinstance(value, str):
            out[key] = value
            continue
        ref = value["keyring"]
        try:
            secret = secret_store().get(ref)
        except Exception as exc:  # a locked keyring is a clear error, not a crash
            raise MissingSecretError(deferred(N_("{server}: {where} {key}: the keyring could not be read"),
                                             server=server, where=where, key=key)) from exc
        if secret is None:
            raise MissingSecretError(deferred(N_("{server}: {where} {key}: no secret named “{ref}” in the keyring"),
                                             server=server, where=where, key=key, ref=ref))
        out[key] = secret
    return out


def _values(raw: Any, server: str, where: str) -> dict[str, Value]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(deferred(N_("{server}: “{where}” must be an object"), server=server, where=where))
    out: dict[str, Value] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            out[str(key)] = value
        elif isinstance(value, (int, float, bool)) and not isinstance(value, bool):
            out[str(key)] = str(value)
        elif isinstance(value, dict) and set(value) == {"keyring"} and isinstance(value["keyring"], str):
            out[str(key)] = {"keyring": value["keyring"]}
        else:
            raise ConfigError(deferred(N_('{server}: {where}.{key} must be a string or {{"keyring": "<name>"}}'),
                                       server=server, where=where, key=key))
    return out


def _allowed_domains(domains: Any, name: str) -> tuple[str, ...]:
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise ConfigError(deferred(N_("{name}: allowed_domains must be a list of domains"), name=name))
    for domain in domains:  # one at a time, to name the one that is not a domain
        try:
            parse_rules([domain])
        except BadDomain as exc:
            raise ConfigError(deferred(N_("{name}: allowed_domains: “{domain}” is not a domain such as example.com "
                                          "or *.example.com"), name=name, domain=domain)) from exc
    return tuple(d.strip() for d in domains if d.strip())


def parse_server(name: str, raw: Any) -> ServerConfig:
    """One ``mcpServers`` entry, validated."""
    if not isinstance(raw, dict):
        raise ConfigError(deferred(N_("{name}: the entry must be an object"), name=name))
    if not name or len(name) > 64:
        raise ConfigError(deferred(N_("“{name}”: a server name needs 1 to 64 characters"), name=name))
    kind = raw.get("type") or raw.get("transport")
    if kind in ("streamable-http", "streamableHttp", "streamable_http"):
        kind = "http"
    if kind is None:
        kind = "stdio" if "command" in raw else ("http" if "url" in raw else None)
    if kind is None:
        raise ConfigError(deferred(N_("{name}: needs a command (stdio) or a url (http/sse)"), name=name))
    if kind not in ("stdio", "http", "sse"):
        raise ConfigError(deferred(N_("{name}: unknown type “{kind}” (stdio, http or sse)"), name=name, kind=str(kind)))
    enabled = raw.get("enabled", not raw.get("disabled", False))
    timeout = raw.get("timeout", 60.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(deferred(N_("{name}: timeout must be a positive number of seconds"), name=name))
    if kind == "stdio":
        command = raw.get("command")
        args = raw.get("args", [])
        if not isinstance(command, str) or not command.strip():
            raise ConfigError(deferred(N_("{name}: a stdio server needs a command"), name=name))
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError(deferred(N_("{name}: args must be a list of strings"), name=name))
        cwd = raw.get("cwd", "")
        sandboxed = raw.get("sandbox", False)
        if not isinstance(sandboxed, bool):
            raise ConfigError(deferred(N_("{name}: sandbox must be true or false"), name=name))
        domains = _allowed_domains(raw.get("allowed_domains", []), name)
        return ServerConfig(
            name=name,
            transport="stdio",
            command=command,
            args=tuple(args),
            env=_values(raw.get("env"), name, "env"),
            cwd=cwd if isinstance(cwd, str) else "",
            enabled=bool(enabled),
            timeout=float(timeout),
            sandbox=sandboxed,
            allowed_domains=domains,
        )
    url = raw.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(deferred(N_("{name}: an {kind} server needs an http(s) url"), name=name, kind=kind))
    return ServerConfig(
        name=name,
        transport="sse" if kind == "sse" else "http",
        url=url,
        headers=_values(raw.get("headers"), name, "headers"),
        enabled=bool(enabled),
        timeout=float(timeout),
        oauth=_oauth(raw.get("oauth"), name),
    )


def _oauth(raw: Any, server: str) -> OAuthOptions:
    if raw is None:
        return OAuthOptions()
    if not isinstance(raw, dict):
        raise ConfigError(deferred(N_("{server}: “oauth” must be an object"), server=server))
    unknown = set(raw) - {"client_id", "client_secret", "client_metadata_url", "scope"}
    if unknown:
        raise ConfigError(deferred(N_("{server}: oauth: unknown keys {keys}"), server=server,
                                   keys=tuple(sorted(str(k) for k in unknown))))
    texts = {}
    for key in ("client_id", "client_metadata_url", "scope"):
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise ConfigError(deferred(N_("{server}: oauth.{key} must be a string"), server=server, key=key))
        texts[key] = value.strip()
    if texts["client_metadata_url"] and not acceptable_origin(texts["client_metadata_url"]):
        raise ConfigError(deferred(N_("{server}: oauth.client_metadata_url must be an https:// URL"), server=server))
    secret = _values({"client_secret": raw["client_secret"]}, server, "oauth")["client_secret"] \
        if raw.get("client_secret") else None
    if secret is not None and not texts["client_id"]:
        raise ConfigError(deferred(N_("{server}: oauth.client_secret needs oauth.client_id"), server=server))
    return OAuthOptions(client_secret=secret, **texts)


def parse_config(document: Any, *, key: str = "mcpServers") -> dict[str, ServerConfig]:
    """Every server of a parsed ``mcp.json``-like document (``key`` is ``servers`` for VS Code)."""
    if not isinstance(document, dict):
        raise ConfigError(deferred(N_("the file must hold a JSON object")))
    servers = document.get(key, {})
    if not isinstance(servers, dict):
        raise ConfigError(deferred(N_("“{key}” must be an object"), key=key))
    return {name: parse_server(str(name), raw) for name, raw in servers.items()}


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


def load_config(path: Path | None = None) -> dict[str, ServerConfig]:
    """The configured servers; an absent file means none. A broken file raises ``ConfigError``."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        document = read_json(text)
    except json.JSONDecodeError as exc:
        # Where, not the reader's English ("Expecting ',' delimiter"): that stays the cause
        # (``explain.technical_detail``).
        raise ConfigError(deferred(N_("{path}: not valid JSON (line {line}, column {column})"), path=str(path),
                                   line=exc.lineno, column=exc.colno)) from exc
    return parse_config(document)


def save_config(servers: dict[str, ServerConfig], path: Path | None = None) -> None:
    """Write ``mcp.json`` atomically, keeping any top-level keys we do not know."""
    path = path or config_path()
    document: dict[str, Any] = {}
    try:
        loaded = read_json(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            document = loaded
    except (FileNotFoundError, json.JSONDecodeError):
        pass
    document["mcpServers"] = {name: cfg.to_json() for name, cfg in servers.items()}
    write_atomically(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


@dataclass(frozen=True)
class SavedConfig:
    """The servers as one process last read or wrote ``mcp.json``, and the file's stamp then."""

    servers: dict[str, ServerConfig]
    stamp: FileStamp | None


def read_saved_config(path: Path | None = None) -> SavedConfig:
    """``load_config`` with the stamp of the file it read (taken first: a save in between is seen
    as a change next time, never missed)."""
    path = path or config_path()
    stamp = file_stamp(path)
    return SavedConfig(load_config(path), stamp)


def update_config(change: Callable[[dict[str, ServerConfig]], None], path: Path | None = None, *,
                  held: SavedConfig | None = None) -> SavedConfig:
    """Apply ``change`` to the servers ``mcp.json`` holds now and save them, while other processes
    that change the file wait. ``held``: what the caller last read or wrote; its servers are the
    starting point while the file is still as it was then (a manager given its servers in code
    keeps them), else (or when the file was written too recently to tell) the file is read
    again. A file that cannot be read raises ``ConfigError`` and is left as it is."""
    path = path or config_path()
    with changing_alone(path):
        if held is not None and file_stamp(path) == held.stamp and not recently_written(held.stamp):
            servers = dict(held.servers)
        else:
            servers = load_config(path)
        change(servers)
        save_config(servers, path)
        return SavedConfig(servers, file_stamp(path))
