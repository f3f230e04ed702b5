"""Pinned tool definitions: what the person approved, to show what a server changed since.

The authoritative pin is ``ToolSettings.pinned_hash`` in the settings; this file keeps the
approved definition itself (``mcp-pins.json`` in the config folder) so the catalog can say
*what* changed, not only *that* something did.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred
from echo_desk.store.paths import config_dir
from echo_desk.store.settings import write_atomically

PINS_FILE = "mcp-pins.json"
_SHOWN = 160
# Each change is a deferred message: English for the CLI and the logs, translated in the app.
_CHANGED = {"title": N_("title: {old} → {new}"), "annotations": N_("annotations: {old} → {new}"),
            "outputSchema": N_("output schema: {old} → {new}")}


class PinStore:
    """``pin key -> approved definition`` (see ``toolset.pin_key`` and ``sanitize.canonical_definition``;
    an older version keyed it by registry name, still read as a fallback)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / PINS_FILE
        self._lock = threading.Lock()
        try:
            loaded = read_json(self.path.read_text(encoding="utf-8"))
            self._pins: dict[str, Any] = loaded if isinstance(loaded, dict) else {}
        except (OSError, json.JSONDecodeError):
            self._pins = {}

    def get(self, name: str) -> dict[str, Any] | None:
        value = self._pins.get(name)
        return value if isinstance(value, dict) else None

    def put(self, name: str, definition: dict[str, Any]) -> None:
        with self._lock:
            self._pins[name] = definition
            write_atomically(self.path, json.dumps(self._pins, indent=1, ensure_ascii=False).encode("utf-8"))


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def describe_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """Person-readable differences between an approved definition and the current one."""
    if old is None:
        return [deferred(N_("the definition changed (the approved copy is not available to compare)"))]
    changes: list[str] = []
    if old.get("description") != new.get("description"):
        changes.append(deferred(N_("description: {old} → {new}"), old=repr(_short(old.get("description"))),
                                new=repr(_short(new.get("description")))))
    old_schema = old.get("inputSchema") or {}
    new_schema = new.get("inputSchema") or {}
    if old_schema != new_schema:
        old_props = old_schema.get("properties") or {} if isinstance(old_schema, dict) else {}
        new_props = new_schema.get("properties") or {} if isinstance(new_schema, dict) else {}
        for key in sorted(set(new_props) - set(old_props)):
            changes.append(deferred(N_("parameter added: {key} {schema}"), key=key, schema=_short(new_props[key])))
        for key in sorted(set(old_props) - set(new_props)):
            changes.append(deferred(N_("parameter removed: {key}"), key=key))
        for key in sorted(set(old_props) & set(new_props)):
            if old_props[key] != new_props[key]:
                changes.append(deferred(N_("parameter {key}: {old} → {new}"), key=key, old=_short(old_props[key]),
                                        new=_short(new_props[key])))
        rest_old = {k: v for k, v in old_schema.items() if k != "properties"}
        rest_new = {k: v for k, v in new_schema.items() if k != "properties"}
        if rest_old != rest_new:
            changes.append(deferred(N_("schema: {old} → {new}"), old=_short(rest_old), new=_short(rest_new)))
    for key in ("title", "annotations", "outputSchema"):
        if key in old and old.get(key) != new.get(key):  # an older pin did not cover them
            changes.append(deferred(_CHANGED[key], old=repr(_short(old.get(key))), new=repr(_short(new.get(key)))))
    if old.get("name") != new.get("name"):
        changes.append(deferred(N_("name: {old} → {new}"), old=repr(old.get("name")), new=repr(new.get("name"))))
    return changes or [deferred(N_("the definition changed"))]
