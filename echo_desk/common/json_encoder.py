"""JSON text from one encoder kept for every call.

``json.JSONEncoder.encode`` builds its C encoder anew on every call (with a dict to catch circular
references) and goes through two Python frames first: about half of its time for the short texts
of a call's path (an MCP call through the gateway encodes five: its arguments, the server's
request line, the audit column and journal line, the answer's line). ``encoder`` makes the C
encoder once, with the same options, and only calls it: the same text, byte for byte.

What it is not: it does not look for circular references (as ``check_circular=False``); its
callers encode what was read from JSON text or built here, which holds none, and one would end
in ``RecursionError`` rather than ``ValueError``. Without the C accelerator (another Python) it is
``JSONEncoder.encode``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as json_encoder
from typing import Any


def encoder(*, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": "), allow_nan: bool = True,
            default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """``json.JSONEncoder(...).encode`` with these options (and ``check_circular=False``)."""
    made = json.JSONEncoder(ensure_ascii=ensure_ascii, separators=separators, allow_nan=allow_nan,
                            default=default, check_circular=False)
    make_c = getattr(json_encoder, "c_make_encoder", None)
    if make_c is None:
        return made.encode
    quote = json_encoder.encode_basestring_ascii if ensure_ascii else json_encoder.encode_basestring
    item_separator, key_separator = separators
    # The arguments ``JSONEncoder.iterencode`` gives it (no markers: nothing kept between calls,
    # so threads may share it).
    encode_c = make_c(None, made.default, quote, None, key_separator, item_separator, False, False, allow_nan)

    def encode(value: Any) -> str:
        return "".join(encode_c(value, 0))

    return encode
