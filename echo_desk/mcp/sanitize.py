"""Untrusted tool definitions from MCP servers: hidden characters, names, schemas, hashes.

A server is written by someone else and may be hostile. Everything it says about its tools is
cleaned before a model sees it, and every change to it is noticed (see ``definition_hash``).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

from echo_desk.agent.schema_checks import check_tool_schema
from echo_desk.common.visible_text import BLANK_LOOKING

#: Zero-width characters, bidi controls, Unicode tag characters (U+E0000–U+E007F) and other
#: invisible format characters that can smuggle instructions past a person reading a catalog.
_HIDDEN_RANGES = (
    (0x200B, 0x200F),  # zero-width space/joiners, LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner, invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0xE0000, 0xE007F),  # tag characters
    (0xFE00, 0xFE0F),  # variation selectors
)
_HIDDEN_SINGLES = frozenset({0x00AD, 0x061C, 0x180E, 0xFEFF})

#: Caps on what a server may hand us (schemas are capped by ``check_tool_schema``).
MAX_DESCRIPTION_CHARS = 8 * 1024
MAX_TOOLS_PER_SERVER = 256
#: Providers accept at most 64 characters of ``[A-Za-z0-9_-]`` in a tool name.
MAX_NAME_LENGTH = 64
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")


def is_hidden_char(ch: str) -> bool:
    code = ord(ch)
    if code in _HIDDEN_SINGLES or code in BLANK_LOOKING:  # blank-looking letters (U+2800, U+3164...)
        return True
    if any(lo <= code <= hi for lo, hi in _HIDDEN_RANGES):
        return True
    # Other format characters (category Cf) are invisible too; newlines/tabs are Cc and stay.
    return unicodedata.category(ch) == "Cf"


def strip_hidden(text: str) -> tuple[str, list[str]]:
    """``text`` without hidden characters, and the code points that were removed (``U+200B``)."""
    found: list[str] = []
    kept: list[str] = []
    for ch in text:
        if is_hidden_char(ch):
            found.append(f"U+{ord(ch):04X}")
        else:
            kept.append(ch)
    return "".join(kept), found


def strip_hidden_deep(value: Any, found: list[str]) -> Any:
    """A copy of a JSON value with hidden characters removed from every string (keys included)."""
    if isinstance(value, str):
        clean, hits = strip_hidden(value)
        found.extend(hits)
        return clean
    if isinstance(value, list):
        return [strip_hidden_deep(v, found) for v in value]
    if isinstance(value, dict):
        return {strip_hidden_deep(k, found): strip_hidden_deep(v, found) for k, v in value.items()}
    return value


def server_prefix(server: str) -> str:
    """How the registry names of ``server``'s tools begin (unless shortened with a hash)."""
    return f"{_NAME_BAD.sub('_', server)}__"


def may_name_a_tool_of(server: str, name: str) -> bool:
    """Whether ``name`` may be the registry name of one of ``server``'s tools (``registry_name``),
    before the server has said which tools it has: it begins with the server's prefix, or with as
    much of it as a name shortened with a hash keeps. (Two servers may both match: ``a`` and ``a__b``.)"""
    return name.startswith(server_prefix(server)[: MAX_NAME_LENGTH - 12])


def registry_name(server: str, tool: str, taken: set[str]) -> str:
    """``server__tool`` made provider-safe, at most 64 characters and unique within ``taken``."""
    base = f"{_NAME_BAD.sub('_', server)}__{_NAME_BAD.sub('_', tool)}"
    if len(base) <= MAX_NAME_LENGTH and base not in taken:
        return base
    # Too long or colliding: keep a readable prefix and make it unique with a short hash.
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    candidate = f"{base[: MAX_NAME_LENGTH - 9]}_{digest}"
    counter = 1
    while candidate in taken:
        candidate = f"{base[: MAX_NAME_LENGTH - 12]}_{digest}{counter:02d}"[:MAX_NAME_LENGTH]
        counter += 1
    return candidate


def schema_problems(schema: Any) -> list[str]:
    """Problems of an untrusted input schema, by the engine's shared checker (size, depth,
    property count, local ``$ref`` only, Draft 2020-12 validity); empty when usable."""
    return check_tool_schema(schema)


def canonical_definition(
    name: str,
    description: str,
    schema: dict[str, Any],
    *,
    title: str | None = None,
    annotations: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The parts of a tool definition the person approves (raw, hidden characters included):
    what the model reads and what the approval dialog shows (title, annotations such as
    ``readOnlyHint``), and what the tool says it returns."""
    return {
        "name": name,
        "description": description,
        "inputSchema": schema,
        "title": title,
        "annotations": annotations or {},
        "outputSchema": output_schema,
    }


#: The parts a pin covered before titles, annotations and output schemas were pinned too.
_LEGACY_PINNED = ("name", "description", "inputSchema")


def legacy_definition_hash(definition: dict[str, Any]) -> str:
    """The hash an older Echo Desk pinned for this definition (name, description, input schema)."""
    return definition_hash({key: definition.get(key) for key in _LEGACY_PINNED})


def definition_hash(definition: dict[str, Any]) -> str:
    """A stable hash of a tool definition: sorted keys, no whitespace, sha256."""
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
