"""Import MCP servers from Claude Desktop, Cursor and VS Code, with a preview first.

``preview_import(path)`` reads the other client's file and says, per server, what would be
added, changed or skipped (and why) without touching anything; ``apply_import(preview)``
writes ``mcp.json`` and moves the chosen secrets into the keyring.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred
from echo_desk.mcp.config import ConfigError, ServerConfig, Value, load_config, parse_server, update_config
from echo_desk.mcp.explain import explained
from echo_desk.tools.secrets import secret_store, secrets_kept

_VSCODE_INPUT = re.compile(r"\$\{input:([^}]+)\}")


class ImportAction(enum.StrEnum):
    ADD = "add"
    CHANGE = "change"
    SAME = "same"
    SKIP = "skip"


@dataclass(frozen=True, kw_only=True)
class ImportItem:
    """One server of the imported file and what importing would do with it."""

    name: str
    action: ImportAction
    config: ServerConfig | None = None
    #: Why it is skipped, or what changes (person-facing; translate with ``_()`` when shown).
    reason: str = ""
    #: ``env.KEY`` / ``headers.KEY`` values that would be stored in the keyring, not the file.
    to_keyring: tuple[str, ...] = ()
    #: Values left in mcp.json although the keyring was asked for (this machine has none).
    left_in_file: tuple[str, ...] = ()
    #: Keyring names that must be filled in before the server can start (VS Code ``${input:}``).
    needs_secrets: tuple[str, ...] = ()
    #: The secret values to store on apply; never shown and never written to mcp.json.
    _secrets: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, kw_only=True)
class ImportPreview:
    source: Path
    source_kind: str
    items: tuple[ImportItem, ...]

    @property
    def counts(self) -> dict[str, int]:
        out = {a.value: 0 for a in ImportAction}
        for item in self.items:
            out[item.action.value] += 1
        return out


def detect_kind(document: dict[str, Any], path: Path) -> str:
    """``claude``, ``cursor`` or ``vscode`` (VS Code keeps servers under ``servers``)."""
    if "servers" in document and "mcpServers" not in document:
        return "vscode"
    if path.name == "claude_desktop_config.json":
        return "claude"
    return "cursor" if path.parent.name == ".cursor" else "claude"


def _keyring_name(server: str, where: str, key: str) -> str:
    return f"mcp.{server}.{where}.{key}"


class PreparedImport(NamedTuple):
    """A server brought over from another app, as Echo Desk would keep it."""

    config: ServerConfig
    #: ``env.KEY`` / ``headers.KEY`` values moved to the keyring.
    to_keyring: tuple[str, ...]
    #: Keyring names to fill in before the server can start (VS Code ``${input:}``).
    needs_secrets: tuple[str, ...]
    #: The values to store in the keyring on apply.
    secrets: dict[str, str]
    #: ``env.KEY`` / ``headers.KEY`` values left in mcp.json as they were, although the keyring
    #: was asked for: this machine has none, and a value kept only until exit would be lost.
    left_in_file: tuple[str, ...] = ()


def prepare_import(name: str, cfg: ServerConfig, use_keyring: bool) -> PreparedImport:
    """A server brought over from another app as Echo Desk keeps it: plain values moved to keyring
    references (when asked and the keyring keeps them), VS Code inputs to references to fill in,
    stdio servers sandboxed."""
    to_keyring: list[str] = []
    left_in_file: list[str] = []
    needs: list[str] = []
    secrets: dict[str, str] = {}
    keyring_keeps = secrets_kept()

    def move(values: dict[str, Value], where: str) -> dict[str, Value]:
        out: dict[str, Value] = {}
        for key, value in values.items():
            if isinstance(value, dict):
                out[key] = value
                continue
            ref = _keyring_name(name, where, key)
            if _VSCODE_INPUT.search(value):
                out[key] = {"keyring": ref}
                needs.append(ref)
            elif use_keyring and keyring_keeps:
                out[key] = {"keyring": ref}
                secrets[ref] = value
                to_keyring.append(f"{where}.{key}")
            else:
                out[key] = value
                if use_keyring:
                    left_in_file.append(f"{where}.{key}")
        return out

    # A server brought over from another app starts in the sandbox (docs/sandbox.md).
    converted = replace(cfg, env=move(cfg.env, "env"), headers=move(cfg.headers, "headers"), sandbox=cfg.is_stdio)
    return PreparedImport(converted, tuple(to_keyring), tuple(needs), secrets, tuple(left_in_file))


def preview_import(path: Path, *, use_keyring: bool = True, current: dict[str, ServerConfig] | None = None) -> ImportPreview:
    """What importing ``path`` would do. Raises ``ConfigError`` when the file is unusable."""
    try:
        document = read_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(deferred(N_("{path}: cannot read it ({error})"), path=str(path),
                                   error=explained(exc, quote_detail=False))) from exc
    if not isinstance(document, dict):
        raise ConfigError(deferred(N_("{path}: the file must hold a JSON object"), path=str(path)))
    kind = detect_kind(document, Path(path))
    servers = document.get("servers" if kind == "vscode" else "mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(deferred(N_("{path}: no server list found"), path=str(path)))
    existing = load_config() if current is None else current
    items: list[ImportItem] = []
    for name, raw in servers.items():
        name = str(name)
        try:
            if kind == "vscode" and isinstance(raw, dict) and raw.get("type") == "stdio":
                raw = {k: v for k, v in raw.items() if k != "type"}
            if isinstance(raw, dict) and "envFile" in raw:
                raise ConfigError(deferred(N_("uses an envFile, which Echo Desk does not read")))
            parsed = parse_server(name, raw)
        except ConfigError as exc:
            items.append(ImportItem(name=name, action=ImportAction.SKIP, reason=explained(exc)))
            continue
        prepared = prepare_import(name, parsed, use_keyring)
        cfg = prepared.config
        old = existing.get(name)
        if old is None:
            action, reason = ImportAction.ADD, ""
        elif old.fingerprint() == cfg.fingerprint() and old.to_json() == cfg.to_json():
            action, reason = ImportAction.SAME, N_("already configured the same way")
        else:
            action, reason = ImportAction.CHANGE, _describe_change(old, cfg)
        items.append(
            ImportItem(
                name=name,
                action=action,
                config=cfg,
                reason=reason,
                to_keyring=prepared.to_keyring,
                left_in_file=prepared.left_in_file,
                needs_secrets=prepared.needs_secrets,
                _secrets=prepared.secrets,
            )
        )
    return ImportPreview(source=Path(path), source_kind=kind, items=tuple(items))


def _describe_change(old: ServerConfig, new: ServerConfig) -> str:
    parts = []
    for attr in ("transport", "command", "args", "url", "cwd", "enabled"):
        if getattr(old, attr) != getattr(new, attr):
            parts.append(attr)
    if sorted(old.env) != sorted(new.env):
        parts.append("env")
    if sorted(old.headers) != sorted(new.headers):
        parts.append("headers")
    # The field names stay as mcp.json spells them; "values": only a value changed.
    return deferred(N_("changes: {fields}"), fields=tuple(parts) if parts else deferred(N_("values")))


def apply_import(preview: ImportPreview, *, names: set[str] | None = None) -> list[str]:
    """Write the previewed additions and changes (or only ``names``); returns what was written.

    Secrets go to the keyring first, so a failure there leaves ``mcp.json`` untouched.
    """
    chosen = [
        item
        for item in preview.items
        if item.action in (ImportAction.ADD, ImportAction.CHANGE)
        and item.config is not None
        and (names is None or item.name in names)
    ]
    store = secret_store()
    for item in chosen:
        for ref, value in item._secrets.items():
            store.set(ref, value)
    if chosen:
        update_config(lambda current: current.update({item.name: item.config for item in chosen if item.config}))
    return [item.name for item in chosen]
