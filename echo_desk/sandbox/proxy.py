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
import shutil
import socket
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from echo_desk.sandbox.domains import DomainRule, address_is_public, host_allowed

Resolver = Callable[[str, int], Awaitable[list[str]]]
MAX_HEAD = 64 * 1024
CONNECT_TIMEOUT = 15.0


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
    refused: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _relay: socket.socket | None = None

    def attach(self, relay: socket.socket) -> None:
        """Start taking connections from the forwarder's end of the socket pair (call on the loop
        that runs the command)."""
        relay.setblocking(False)
        self._relay = relay
        asyncio.get_running_loop().add_reader(relay.fileno(), self._on_fds)

    def _on_fds(self) -> None:
        assert self._relay is not None
        try:
            _msg, fds, _flags, _addr = socket.recv_fds(self._relay, 16, 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            fds, _msg = [], b""
        if not fds and not _msg:
            asyncio.get_running_loop().remove_reader(self._relay.fileno())
            return
        for fd in fds:
            task = asyncio.get_running_loop().create_task(self._serve(socket.socket(fileno=fd)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        if self._relay is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._relay.fileno())
            self._relay.close()
            self._relay = None
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    async def _serve(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        reader, writer = await asyncio.open_connection(sock=conn)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
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
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            rest = b""
        else:
            url = urlsplit(target)
            if url.scheme != "http" or not url.hostname:
                return await _reply(writer, 400, "only CONNECT and absolute http:// requests")
            host, port_text = url.hostname, str(url.port or 80)
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            kept = [h for h in lines[1:] if h and not h.lower().startswith(("proxy-", "connection:"))]
            rest = "\r\n".join([f"{method} {path} {version}", *kept, "Connection: close", "", ""]).encode("latin-1")
        host = host.strip("[]")
        if not port_text.isdigit() or not host_allowed(host, self.rules):
            return await self._refuse(writer, host or target, "not an allowed domain")
        port = int(port_text)
        try:
            addresses = await self.resolve(host, port)
        except OSError:
            return await self._refuse(writer, host, "cannot be resolved")
        usable = [a for a in addresses if self.address_allowed(a)]
        if not usable or len(usable) != len(addresses):
            return await self._refuse(writer, host, "resolves to a local or private address")
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(usable[0], port), CONNECT_TIMEOUT)
        except (TimeoutError, OSError):
            return await _reply(writer, 502, f"cannot connect to {host}")
        self.allowed.append(host)
        if rest:
            up_writer.write(rest)
        else:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

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
