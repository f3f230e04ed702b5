"""JSON text from outside (a model, a server, a web page, a client, a file): read so that any
failure is a ``ValueError``.

``json.loads`` raises ``RecursionError`` for arrays or objects nested past Python's recursion
depth (a few kilobytes of ``[`` do it), which no caller's ``except ValueError`` catches: one such
line ended a gateway client's session. Here it is the ``json.JSONDecodeError`` every caller
already handles.
"""

from __future__ import annotations

import json
from typing import Any

#: The message of the error for nesting too deep to read.
TOO_DEEP = "nested too deeply to read"


def read_json(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``; nesting too deep to read raises ``json.JSONDecodeError`` too."""
    try:
        return json.loads(text)
    except RecursionError:
        doc = text if isinstance(text, str) else bytes(text[:200]).decode("utf-8", "replace")
        raise json.JSONDecodeError(TOO_DEEP, doc, 0) from None
