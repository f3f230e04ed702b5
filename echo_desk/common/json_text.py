"""JSON text from outside (a model, a server, a web page, a client, a file): read so that any
failure is a ``ValueError``.

``json.loads`` raises ``RecursionError`` for arrays or objects nested past Python's recursion
depth (a few kilobytes of ``[`` do it), which no caller's ``except ValueError`` catches: one such
line ended a gateway client's session. Here it is the ``json.JSONDecodeError`` every caller
already handles. So is any other way ``json.loads`` fails with a plain ``ValueError``: an integer
longer than Python reads (4,300 digits; JSON sets no limit) and bytes that are not UTF-8 text.
Both once ended a gateway client's session as well (the stdio transport catches
``JSONDecodeError``, as most callers do).
"""

from __future__ import annotations

import json
from typing import Any

#: The message of the error for nesting too deep to read.
TOO_DEEP = "nested too deeply to read"
#: The message of the error for an integer with more digits than Python reads.
TOO_LONG_NUMBER = "a number too long to read"
#: The message of the error for bytes that are not UTF-8 (or UTF-16/32) text.
NOT_TEXT = "not UTF-8 text"
#: Errors of JSON that is well-formed or may be: its ``id`` can still be looked for in it.
UNREADABLE = frozenset({TOO_DEEP, TOO_LONG_NUMBER})


#: What ``json.loads`` reads text with when given no options.
_DECODER = json.JSONDecoder()


def read_json(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``; every failure to read it is a ``json.JSONDecodeError``."""
    try:
        if type(text) is bytes and text.startswith(b'{"'):
            # ``json.loads`` finds these bytes UTF-8 (no byte order mark, no NUL) and decodes them
            # so: the same read without its look at the encoding (a line of JSON-RPC: ~1-2 µs less).
            return _DECODER.decode(text.decode("utf-8", "surrogatepass"))
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, _shown(text), 0) from None
    except UnicodeDecodeError:
        raise json.JSONDecodeError(NOT_TEXT, _shown(text), 0) from None
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise json.JSONDecodeError(TOO_LONG_NUMBER, _shown(text), 0) from None


def _shown(text: str | bytes | bytearray) -> str:
    return text[:200] if isinstance(text, str) else bytes(text[:200]).decode("utf-8", "replace")
