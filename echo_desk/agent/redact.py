"""Redaction of hidden parameters and secret-looking values before anything is stored."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

REDACTED = "«redacted»"
_SECRET_NAME = re.compile(r"(key|token|secret|password|passwd|credential|auth|cookie|session)", re.I)
# Values that look like credentials whatever their field is called.
_SECRET_VALUE = re.compile(
    r"^(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+|Bearer\s+\S{12,})$"
)


def redact(value: Any, hidden: Iterable[str] = ()) -> Any:
    """A copy of ``value`` with hidden keys, secret-named keys and secret-looking strings masked."""
    hidden_set = frozenset(hidden)

    def walk(v: Any, key: str | None) -> Any:
        if key is not None and (key in hidden_set or _SECRET_NAME.search(key)):
            return REDACTED
        if isinstance(v, dict):
            return {k: walk(item, str(k)) for k, item in v.items()}
        if isinstance(v, list | tuple):
            return [walk(item, None) for item in v]
        if isinstance(v, str) and _SECRET_VALUE.match(v.strip()):
            return REDACTED
        return v

    return walk(value, None)
