"""Where OAuth documents and endpoints may live: HTTPS only.

OAuth 2.1 and the MCP authorization specification require TLS for every authorization
endpoint and metadata document. The one exception is plain HTTP on a loopback address, and
only while ``loopback_http_allowed()`` is active: tests run their authorization servers on
127.0.0.1 without certificates. Nothing in the app or the CLI turns it on.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator
from urllib.parse import urlsplit

_allow_loopback_http = False


@contextlib.contextmanager
def loopback_http_allowed() -> Iterator[None]:
    """Tests only: accept ``http://127.0.0.1…``/``http://localhost…`` for OAuth documents."""
    global _allow_loopback_http
    before, _allow_loopback_http = _allow_loopback_http, True
    try:
        yield
    finally:
        _allow_loopback_http = before


def is_loopback_host(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def acceptable_origin(url: str) -> bool:
    """``https://host/…``, or ``http://`` to a loopback host while tests allow it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and _allow_loopback_http and is_loopback_host(parts.hostname)
