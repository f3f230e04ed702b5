"""Make database values JSON-safe, for the model's table and the card's grid.

Decimals stay exact (as strings), bytes become ``\\x…`` hex like PostgreSQL prints them,
intervals become ISO 8601 durations, NaN/infinity become strings (JSON has no such numbers).
"""

from __future__ import annotations

import datetime as dt
import decimal
import ipaddress
import json
import math
import uuid
from collections.abc import Mapping
from typing import Any

from echo_desk.common.json_text import read_json

#: Bytes beyond this are cut in the hex form (a blob is rarely useful to the model whole).
MAX_BYTES_SHOWN = 64


def iso_duration(delta: dt.timedelta) -> str:
    """``timedelta`` → ISO 8601 duration (``P1DT2H3M4.5S``); negative as ``-P…``."""
    sign = "-" if delta < dt.timedelta(0) else ""
    delta = abs(delta)
    seconds = delta.seconds + delta.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    out = f"{sign}P{delta.days}D" if delta.days else f"{sign}P"
    clock = ""
    if hours:
        clock += f"{int(hours)}H"
    if minutes:
        clock += f"{int(minutes)}M"
    if secs or not (delta.days or clock):
        clock += f"{secs:g}S"
    return out + ("T" + clock if clock else "")


def hex_bytes(data: bytes) -> str:
    shown = data[:MAX_BYTES_SHOWN].hex()
    more = len(data) - MAX_BYTES_SHOWN
    return f"\\x{shown}" + (f"… ({len(data)} bytes)" if more > 0 else "")


def json_safe(value: Any) -> Any:
    """A value ``json.dumps`` accepts and that round-trips without losing meaning."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return iso_duration(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return hex_bytes(bytes(value))
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, ipaddress.IPv4Address | ipaddress.IPv6Address | ipaddress.IPv4Network
                  | ipaddress.IPv6Network | ipaddress.IPv4Interface | ipaddress.IPv6Interface):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        # asyncpg Records (composite types) are tuple-like and land here too.
        return [json_safe(v) for v in value]
    return str(value)  # ranges, geometric types, bit strings, money...: their text form


def parse_json_column(value: Any) -> Any:
    """asyncpg hands ``json``/``jsonb`` over as text: parse it so the grid gets a structure."""
    if isinstance(value, str):
        try:
            return read_json(value)
        except ValueError:
            return value
    return value


def cell_text(value: Any, width: int) -> str:
    """One cell of the model's text table: JSON for structures, ``NULL`` for None, cut at width."""
    if value is None:
        text = "NULL"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"
