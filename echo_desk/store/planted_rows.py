"""What a sandbox left (``tools.planted`` entries), as a stores' text column holds it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from echo_desk.common.json_text import read_json
from echo_desk.common.storable import storable


def planted_text(planted: Sequence[Mapping[str, Any]]) -> str:
    """The entries as JSON text (paths that are not valid UTF-8 made storable)."""
    return json.dumps(storable([dict(p) for p in planted]), ensure_ascii=False)


def planted_entries(text: str) -> tuple[Mapping[str, Any], ...]:
    """The entries ``planted_text`` wrote; a damaged column reads as none (never an error at a start)."""
    try:
        value = read_json(text)
    except ValueError:
        return ()
    return tuple(item for item in value if isinstance(item, dict)) if isinstance(value, list) else ()
