"""Tool and server icons (``icons`` in MCP 2025-11-25+), for the catalog and the MCP page.

A server names its icons by address, so loading one is a request Echo Desk makes on the
server's word, without anybody asking: only ``data:`` and ``https:`` are taken; an https icon
passes ``fetch_url``'s guard (a host that resolves to this computer or its local network is
refused, every redirect checked again) and is never sent cookies or credentials; at most
``MAX_ICON_BYTES`` are read; what comes back must be a PNG, JPEG, GIF or WebP by its first
bytes (SVG is refused: it can carry script and costs a renderer). Loaded icons are cached in
memory and on disk by the hash of their address; a failed one is simply not shown.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import unquote_to_bytes, urljoin, urlsplit

import httpx
import mcp_types as types

from echo_desk.builtins.web.netguard import local_addresses

MAX_ICON_BYTES = 256 * 1024
MAX_ICON_URL = 8192
FETCH_TIMEOUT_SECONDS = 10.0
MAX_REDIRECTS = 3
_RASTER = ("image/png", "image/jpeg", "image/gif", "image/webp")


def image_type(data: bytes) -> str | None:
    """The raster type of ``data`` by its signature; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def choose(icons: Sequence[types.Icon] | None, *, dark: bool = False) -> str | None:
    """The address of the icon to show: ``data:``/``https:`` only, a raster type (when one is
    declared), the theme's own before one for the other theme."""
    usable = []
    for icon in icons or ():
        src = icon.src.strip()
        scheme = src.split(":", 1)[0].lower()
        if len(src) > MAX_ICON_URL * 64 or scheme not in ("data", "https"):
            continue
        declared = (icon.mime_type or "").lower()
        if scheme == "data":
            declared = declared or src[5:].split(",", 1)[0].split(";", 1)[0].lower()
        if declared and declared not in _RASTER:
            continue
        if scheme == "https" and len(src) > MAX_ICON_URL:
            continue
        usable.append(icon)
    wanted = "dark" if dark else "light"
    usable.sort(key=lambda i: 0 if i.theme in (None, wanted) else 1)
    return usable[0].src.strip() if usable else None


def decode_data_url(src: str) -> bytes | None:
    """The bytes of a ``data:`` address (base64 or percent-encoded), ``None`` when malformed or too big."""
    head, sep, payload = src[5:].partition(",")
    if not sep or len(payload) > MAX_ICON_BYTES * 4 // 3 + 8:
        return None
    try:
        data = base64.b64decode(payload, validate=True) if head.endswith(";base64") else unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None
    return data if len(data) <= MAX_ICON_BYTES else None


class IconFetchRefused(Exception):
    """Why an https icon was not loaded (logged nowhere: the icon is simply not shown)."""


async def fetch_https(src: str, *, transport: httpx.AsyncBaseTransport | None = None) -> bytes:
    """GET an https icon under the guard; raises ``IconFetchRefused`` or ``httpx.HTTPError``."""
    url = src
    async with httpx.AsyncClient(follow_redirects=False, timeout=FETCH_TIMEOUT_SECONDS, transport=transport,
                                 trust_env=False, headers={"Accept": ", ".join(_RASTER)}) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if parts.scheme != "https" or not parts.hostname or "@" in parts.netloc:
                raise IconFetchRefused(f"not an https address: {url}")
            if await local_addresses(parts.hostname, parts.port or 443):
                raise IconFetchRefused(f"{parts.hostname} is this computer or its local network")
            async with client.stream("GET", url) as response:
                if response.is_redirect:
                    url = urljoin(url, response.headers.get("location", ""))
                    continue
                if response.status_code != 200:
                    raise IconFetchRefused(f"HTTP {response.status_code}")
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_ICON_BYTES:
                        raise IconFetchRefused(f"larger than {MAX_ICON_BYTES} bytes")
                return bytes(body)
    raise IconFetchRefused(f"more than {MAX_REDIRECTS} redirects")


class IconCache:
    """Icons by address: memory, then ``folder`` (one file per address hash), then the source."""

    def __init__(self, folder: Path | Callable[[], Path] | None, *,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        """``folder`` may be a function: the cache folder is made only when an icon is kept."""
        self._folder = folder
        self._transport = transport
        self._memory: dict[str, bytes | None] = {}
        self._pending: dict[str, asyncio.Task[bytes | None]] = {}

    def cached(self, src: str) -> bytes | None:
        return self._memory.get(src)

    async def load(self, src: str) -> bytes | None:
        """The icon's bytes (a checked raster image), or ``None`` when it cannot be shown."""
        if src in self._memory:
            return self._memory[src]
        task = self._pending.get(src)
        if task is None:
            task = self._pending[src] = asyncio.ensure_future(self._load(src))
        try:
            data = await asyncio.shield(task)
        finally:
            self._pending.pop(src, None)
        self._memory[src] = data
        return data

    def _file(self, src: str) -> Path | None:
        folder = self._folder() if callable(self._folder) else self._folder
        if folder is None:
            return None
        return folder / hashlib.sha256(src.encode()).hexdigest()

    async def _load(self, src: str) -> bytes | None:
        if src.startswith("data:"):
            data = decode_data_url(src)
            return data if data is not None and image_type(data) else None
        file = self._file(src)
        if file is not None:
            data = await asyncio.to_thread(_read_kept, file)
            if data is not None and len(data) <= MAX_ICON_BYTES and image_type(data):
                return data
        try:
            data = await fetch_https(src, transport=self._transport)
        except (IconFetchRefused, httpx.HTTPError, OSError):
            return None
        if not image_type(data):
            return None
        if file is not None:
            await asyncio.to_thread(_keep, file, data)
        return data


def _read_kept(file: Path) -> bytes | None:
    try:
        return file.read_bytes()
    except OSError:
        return None


def _keep(file: Path, data: bytes) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temp = file.with_suffix(".part")
        temp.write_bytes(data)
        temp.replace(file)
    except OSError:
        pass  # a cache that cannot be written only costs a fetch next time


class ServerIcons:
    """The icons of the connected servers and their tools, by server name and registry name.

    ``learn`` notes which icon each one names and loads them in the background; ``of`` answers
    at once from memory (``None`` until loaded, or when there is none to show)."""

    def __init__(self, cache: IconCache) -> None:
        self._cache = cache
        self._src: dict[str, str] = {}

    def of(self, key: str) -> bytes | None:
        src = self._src.get(key)
        return self._cache.cached(src) if src is not None else None

    def learn(self, named: dict[str, Sequence[types.Icon] | None]) -> list[str]:
        """Note each key's chosen icon; returns the addresses not loaded yet."""
        new: list[str] = []
        for key, icons in named.items():
            src = choose(icons)
            if src is None:
                self._src.pop(key, None)
                continue
            self._src[key] = src
            if self._cache.cached(src) is None and src not in new:
                new.append(src)
        return new

    async def load(self, sources: list[str]) -> bool:
        """Load ``sources``; whether any of them can be shown."""
        loaded = await asyncio.gather(*(self._cache.load(src) for src in sources))
        return any(data is not None for data in loaded)
