"""The network of a sandboxed command: an HTTP proxy inside Echo Desk that lets through exactly
the allowed domains.

The forwarder inside the sandbox (``forwarder.py``) passes each connection it accepted on the
sandbox's loopback through a socket pair; ``DomainProxy`` serves it: ``CONNECT host:port`` (HTTPS
and anything tunnelled) or an absolute ``http://`` request. A host outside the allowed domains,
a bare IP address, or a name that resolves to a private address is refused with ``403`` and
recorded in ``refused`` for the tool result.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from echo_desk.sandbox.domains import (
    DomainRule,
    address_is_public,
    address_is_this_computer,
    host_allowed,
    normalize_host,
)

Resolver = Callable[[str, int], Awaitable[list[str]]]
MAX_HEAD = 64 * 1024
CONNECT_TIMEOUT = 15.0
#: How long a connection may take to send its request head; a command that never finishes one
#: must not hold a descriptor in Echo Desk.
HEAD_TIMEOUT = 30.0
#: Connections one proxy serves at once (each is a descriptor in Echo Desk's own process, whose
#: limit serves the whole app); more are closed at once.
MAX_CONNECTIONS = 128


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass
class DomainProxy:
    """One command's proxy. ``address_allowed`` decides on resolved addresses (public only,
    unless a test maps a test name to its own loopback server)."""

    rules: tuple[DomainRule, ...]
    resolve: Resolver = system_resolver
    address_allowed: Callable[[str], bool] = address_is_public
    #: Addresses of this computer are never dialled, public or not (a test's site may say otherwise).
    address_is_ours: Callable[[str], bool] = address_is_this_computer
    refused: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _relay: socket.socket | None = None

    def attach(self, relay: socket.socket) -> None:
        """Start taking connections from the forwarder's end of the socket pair (call on the loop
        that runs the command). A later relay (a restarted server) replaces this one."""
        relay.setblocking(False)
        if self._relay is not None:
            self._detach(self._relay)
        self._relay = relay
        asyncio.get_running_loop().add_reader(relay.fileno(), self._on_fds, relay)

    def _detach(self, relay: socket.socket) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(relay.fileno())
        relay.close()
        if self._relay is relay:
            self._relay = None

    def _on_fds(self, relay: socket.socket) -> None:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(relay, 16, 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            fds, msg = [], b""
        if not fds and not msg:
            self._detach(relay)
            return
        # Whatever the other end sends becomes a descriptor in Echo Desk's own process: only stream
        # sockets are served, at most MAX_CONNECTIONS at once; anything else is closed at once.
        for fd in fds:
            try:
                conn = socket.socket(fileno=fd)
            except OSError:
                os.close(fd)
                continue
            if conn.type != socket.SOCK_STREAM or len(self._tasks) >= MAX_CONNECTIONS:
                conn.close()
                continue
            task = asyncio.get_running_loop().create_task(self._serve(conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        if self._relay is not None:
            self._detach(self._relay)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    async def _serve(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        try:
            reader, writer = await asyncio.open_connection(sock=conn, limit=MAX_HEAD)
        except OSError:
            conn.close()
            return
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            await self._handle(head, reader, writer)
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return await _reply(writer, 400, "bad request")
        method, target, version = parts
        request: _Request | None = None
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
        else:
            url = urlsplit(target)
            try:
                port_number = url.port
            except ValueError:
                port_number = None
                url = urlsplit("")
            if url.scheme != "http" or not url.hostname:
                return await _reply(writer, 400, "only CONNECT and absolute http:// requests")
            host, port_text = url.hostname, str(port_number or 80)
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            request = _parse_request(f"{method} {path} {version}", lines[1:])
            if request is None:
                return await _reply(writer, 400, "malformed or ambiguous request headers")
        host = host.strip("[]")
        if not port_text.isdigit() or not host_allowed(host, self.rules):
            return await self._refuse(writer, host or target, "not an allowed domain")
        host = normalize_host(host)  # what is resolved and dialled is the name checked
        port = int(port_text)
        if not 0 < port < 65536:
            return await _reply(writer, 400, "bad port")
        try:
            addresses = await self.resolve(host, port)
        except OSError:
            return await self._refuse(writer, host, "cannot be resolved")
        usable = [a for a in addresses if self.address_allowed(a) and not self.address_is_ours(a)]
        if not usable or len(usable) != len(addresses):
            return await self._refuse(writer, host, "resolves to a local or private address")
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(usable[0], port), CONNECT_TIMEOUT)
        except (TimeoutError, OSError):
            return await _reply(writer, 502, f"cannot connect to {host}")
        self.allowed.append(host)
        authority = host if port == 80 else f"{host}:{port}"
        try:
            if request is not None:
                return await _forward_one(request, authority, reader, writer, up_reader, up_writer)
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await self._tunnel(host, authority, reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()

    async def _tunnel(self, host: str, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      up_reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter) -> None:
        """What the client sends first decides what the tunnel carries, and it must name the tunnel's
        own host, or another site on the same server is reached (domain fronting): TLS whose name
        (SNI) is ``host``, then passed as it is; otherwise one HTTP request, as for ``http://``."""
        try:
            start = await asyncio.wait_for(reader.readexactly(5), HEAD_TIMEOUT)
            if start[0] == 0x16:  # a TLS handshake record
                length = int.from_bytes(start[3:5], "big")
                record = await asyncio.wait_for(reader.readexactly(length), HEAD_TIMEOUT) if length <= 1 << 15 else b""
                name = _tls_name(record)
                if name is None or normalize_host(name) != normalize_host(host):
                    await self._refuse_quietly(name or f"{host} (no TLS name)")
                    return
                up_writer.write(start + record)
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
                return
            head = start + await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            return
        lines = head.decode("latin-1").lstrip("\r\n").split("\r\n")
        parts = lines[0].split(" ")
        request = None
        if len(parts) == 3 and parts[1].startswith("/"):
            request = _parse_request(lines[0], lines[1:])
        elif len(parts) == 3:
            url = urlsplit(parts[1])
            if url.hostname and url.hostname != host:
                await self._refuse_quietly(url.hostname)
                return
        if request is None:
            return await _reply(writer, 400, "a tunnel carries TLS or one HTTP request for its own host")
        await _forward_one(request, authority, reader, writer, up_reader, up_writer)

    async def _refuse_quietly(self, host: str) -> None:
        if host not in self.refused:
            self.refused.append(host)

    async def _refuse(self, writer: asyncio.StreamWriter, host: str, why: str) -> None:
        if host not in self.refused:
            self.refused.append(host)
        await _reply(writer, 403, f"echo-desk-proxy refused {host}: {why}")


async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = (text + "\n").encode()
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}.get(status, "Error")
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                 f"Connection: close\r\nX-Echo-Desk-Proxy: refused\r\n\r\n".encode() + body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()


#: Headers a request through the proxy never carries upstream: the proxy's own, the hop ones, and
#: Host (set from the request target).
_DROPPED = ("host", "connection", "keep-alive", "upgrade", "te", "trailer", "proxy-connection")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


@dataclass
class _Request:
    line: str
    headers: list[tuple[str, str]]
    length: int | None  # Content-Length, or None when chunked
    chunked: bool

    def head(self, authority: str) -> bytes:
        kept = [f"{n}: {v}" for n, v in self.headers
                if n.lower() not in _DROPPED and not n.lower().startswith("proxy-")]
        return "\r\n".join([self.line, f"Host: {authority}", *kept, "Connection: close", "", ""]).encode("latin-1")


def _parse_request(line: str, header_lines: list[str]) -> _Request | None:
    """The headers of a request, or None when a server could read them otherwise than the proxy:
    folded lines, a name with spaces, a control character, several or conflicting body lengths."""
    headers: list[tuple[str, str]] = []
    for raw in header_lines:
        if not raw:
            continue
        name, sep, value = raw.partition(":")
        if not sep or not _TOKEN.match(name) or any((ord(c) < 32 and c != "\t") or c == "\x7f" for c in value):
            return None
        headers.append((name, value.strip()))
    lengths = {v for n, v in headers if n.lower() == "content-length"}
    codings = [v.lower() for n, v in headers if n.lower() == "transfer-encoding"]
    if codings:
        if lengths or codings != ["chunked"]:
            return None
        return _Request(line, [h for h in headers if h[0].lower() != "transfer-encoding"] +
                        [("Transfer-Encoding", "chunked")], None, True)
    if len(lengths) > 1 or (lengths and not next(iter(lengths)).isdigit()):
        return None
    return _Request(line, headers, int(next(iter(lengths))) if lengths else 0, False)


async def _copy_body(request: _Request, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> bool:
    """Forward exactly the request's body; False when it is not framed as declared."""
    try:
        if not request.chunked:
            return await _copy_exactly(request.length or 0, source, sink)
        while True:
            size_line = await source.readuntil(b"\r\n")
            size_text = size_line[:-2].split(b";", 1)[0].strip()
            if not size_text or not all(c in b"0123456789abcdefABCDEF" for c in size_text) or len(size_text) > 16:
                return False
            size = int(size_text, 16)
            sink.write(size_line)
            if size == 0:
                while (trailer := await source.readuntil(b"\r\n")) != b"\r\n":
                    sink.write(trailer)
                sink.write(b"\r\n")
                await sink.drain()
                return True
            if not await _copy_exactly(size, source, sink) or await source.readexactly(2) != b"\r\n":
                return False
            sink.write(b"\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return False


async def _forward_one(request: _Request, authority: str, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter, up_reader: asyncio.StreamReader,
                       up_writer: asyncio.StreamWriter) -> None:
    """One request, its Host the target's (a Host naming another site on the same server is domain
    fronting), its body exactly as framed; nothing after it is read (no pipelining)."""
    up_writer.write(request.head(authority))
    if not await _copy_body(request, reader, up_writer):
        return await _reply(writer, 400, "malformed request body")
    await _pipe(up_reader, writer)


def _tls_name(record: bytes) -> str | None:
    """The server name (SNI) of the TLS ClientHello in ``record``, None when there is none."""
    try:
        if record[0] != 1:
            return None
        at = 4 + 2 + 32
        at += 1 + record[at]  # session id
        at += 2 + int.from_bytes(record[at:at + 2], "big")  # cipher suites
        at += 1 + record[at]  # compression methods
        end = at + 2 + int.from_bytes(record[at:at + 2], "big")
        at += 2
        while at + 4 <= end:
            kind, size = int.from_bytes(record[at:at + 2], "big"), int.from_bytes(record[at + 2:at + 4], "big")
            if kind == 0:
                data = record[at + 4:at + 4 + size]
                if data[2] != 0:
                    return None
                name_size = int.from_bytes(data[3:5], "big")
                return data[5:5 + name_size].decode("ascii")
            at += 4 + size
    except (IndexError, UnicodeDecodeError):
        return None
    return None


async def _copy_exactly(count: int, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> bool:
    while count:
        chunk = await source.read(min(count, 64 * 1024))
        if not chunk:
            return False
        sink.write(chunk)
        count -= len(chunk)
        await sink.drain()
    return True


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(64 * 1024):
            sink.write(chunk)
            await sink.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()


class RelayListener:
    """A private Unix socket the ``relay`` launcher of a spawned sandbox connects to; the one
    connection it makes becomes ``proxy``'s relay. For servers whose spawner cannot pass a
    descriptor. The socket lives in a folder of its own (mode 0700), removed by ``close()``."""

    def __init__(self, proxy: DomainProxy) -> None:
        self.proxy = proxy
        self._folder = Path(tempfile.mkdtemp(prefix="echo-desk-relay-"))
        self.path = self._folder / "proxy.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        self._listener.listen(4)
        self._listener.setblocking(False)
        asyncio.get_running_loop().add_reader(self._listener.fileno(), self._accept)

    def _accept(self) -> None:
        try:
            conn, _addr = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        self.proxy.attach(conn)  # a restarted server connects anew: the newest is the relay

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self._listener.fileno())
        self._listener.close()
        await self.proxy.close()
        shutil.rmtree(self._folder, ignore_errors=True)
