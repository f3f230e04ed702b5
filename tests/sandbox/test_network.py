"""Network of sandboxed commands: none by default; with allowed domains, a proxy in Echo Desk that
lets exactly those through and reports every refused host. Traffic goes to loopback only: the
allowed test name is mapped to the test's own loopback server by the proxy's resolver."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from sandbox_helpers import Jail, LoopbackSite, context, loopback_site, requires_bwrap, run, tool_with

from echo_desk.builtins.shell import command_sandbox
from echo_desk.sandbox.domains import BadDomain, DomainRule, address_is_public, host_allowed, parse_rules
from echo_desk.store.settings import WorkspaceSandbox

ALLOWED = "api.example.test"
_PYTHON = os.path.realpath(sys.executable)


def test_domain_rules() -> None:
    rules = parse_rules(["example.com", "*.docs.example.org"])
    assert host_allowed("example.com", rules) and host_allowed("EXAMPLE.com.", rules)
    assert host_allowed("a.docs.example.org", rules) and host_allowed("x.y.docs.example.org", rules)
    for refused in ("docs.example.org", "www.example.com", "evilexample.com", "example.com.evil.net",
                    "127.0.0.1", "[::1]", "10.0.0.1", "localhost", "example.com:80", ""):
        assert not host_allowed(refused, rules), refused
    for bad in ("1.2.3.4", "*.1.2.3.4", "localhost", "*.local", "printer.lan", "x.internal", "com", "*", "a..b",
                "-a.com", "http://example.com", "::1"):
        with pytest.raises(BadDomain):
            DomainRule.parse(bad)
    assert host_allowed("xn--bcher-kva.example", parse_rules(["bücher.example"]))
    wide = parse_rules(["*.example.com"])
    assert host_allowed("my_bucket.example.com", wide) and host_allowed("A\u3002example.com", wide)
    for odd in ("evil.com\0.example.com", "evil.com%00.example.com", "a b.example.com", "evil.com/.example.com",
                "a\t.example.com", "x" * 250 + ".example.com"):
        assert not host_allowed(odd, wide), odd


def test_only_public_addresses_are_dialled() -> None:
    for private in ("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
                    "0.0.0.0", "::1", "fc00::1", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1", "not-an-ip"):
        assert not address_is_public(private), private
    assert address_is_public("93.184.215.14") and address_is_public("2606:4700::1111")


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackSite]:
    with loopback_site(ALLOWED, b"hello-through-the-proxy") as served:
        monkeypatch.setattr(command_sandbox, "make_proxy", served.make_proxy)
        yield served


def _fetch(url: str) -> str:
    code = ("import sys, urllib.request, urllib.error\n"
            "try:\n print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())\n"
            "except urllib.error.HTTPError as e:\n print('HTTP', e.code, e.read().decode())\n"
            "except Exception as e:\n print('FAILED', type(e).__name__, e)\n")
    # The interpreter itself, not a venv's link to it: a venv under /tmp is hidden by the
    # sandbox's private /tmp (this needs only the standard library).
    return f"{os.path.realpath(sys.executable)} -I -c \"{code}\" {url}"


@requires_bwrap
async def test_an_allowed_domain_is_reached_and_others_are_refused_and_reported(jail: Jail, site: LoopbackSite) -> None:
    tool = tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"]))
    command = "; ".join([_fetch(f"http://{ALLOWED}:{site.port}/ok"), _fetch(f"http://evil.test:{site.port}/no"),
                         _fetch(f"http://10.1.2.3:{site.port}/ip"), _fetch(f"https://other.example.org:{site.port}/")])
    ctx = context(jail.workspace)
    result = await run(tool, {"command": command}, ctx)
    assert result.success, result.error
    assert "hello-through-the-proxy" in result.output
    assert site.hits == [f"{ALLOWED}:{site.port}"]  # nothing else reached the server
    assert result.metadata["sandbox"]["refused_hosts"] == ["evil.test", "10.1.2.3", "other.example.org"]
    assert "network access refused for: evil.test, 10.1.2.3, other.example.org" in result.output
    assert ctx.preview is not None
    assert [t.detail for t in ctx.preview.targets if t.kind == "sandbox"] == ["network: only *.example.test"]


@requires_bwrap
async def test_without_domains_there_is_no_network_and_no_proxy(jail: Jail, site: LoopbackSite) -> None:
    command = "env | grep -i proxy; " + _fetch(f"http://{ALLOWED}:{site.port}/ok") + "; " + _fetch(
        f"http://127.0.0.1:{site.port}/direct")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert "proxy=" not in result.output.lower()
    assert result.output.count("FAILED") == 2 and site.hits == []
    assert result.metadata["sandbox"]["network"] == "none"


def _raw(requests: list[bytes], *, hold: int = 0) -> str:
    """A command that sends each of ``requests`` as it is to the sandbox's proxy on a connection of its
    own and prints what came back; with ``hold``, first opens that many connections that never send a
    whole request (and keeps them open)."""
    code = ("import os, socket, sys\n"
            "port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])\n"
            f"held = [socket.create_connection(('127.0.0.1', port)) for _ in range({hold})]\n"
            "for h in held: h.sendall(b'GET http://x')\n"
            f"for raw in {requests!r}:\n"
            " s = socket.create_connection(('127.0.0.1', port)); s.settimeout(20); s.sendall(raw); s.shutdown(1)\n"
            " out = b''\n"
            " try:\n"
            "  while chunk := s.recv(65536): out += chunk\n"
            " except OSError as e: out += repr(e).encode()\n"
            " print('REPLY', out.decode('latin-1').split(chr(13))[0], flush=True)\n")
    return f"{os.path.realpath(sys.executable)} -I -c \"{code}\""


@requires_bwrap
async def test_the_request_reaches_only_the_host_it_names(jail: Jail, site: LoopbackSite) -> None:
    """Domain fronting: a Host header (or a second, pipelined request) naming another host than the
    request target must not reach that host through the allowed name's server."""
    target = f"http://{ALLOWED}:{site.port}"
    requests = [f"GET {target}/a HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode(),
                f"GET {target}/b HTTP/1.1\r\nHost: {ALLOWED}\r\n\r\nGET /c HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode(),
                f"POST {target}/d HTTP/1.1\r\nHost: {ALLOWED}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                "GET /e HTTP/1.1\r\nHost: evil.test\r\n\r\n".encode()]
    result = await run(tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"])),
                       {"command": _raw(requests)}, context(jail.workspace))
    assert "evil.test" not in site.hits, (site.hits, result.output)
    assert set(site.hits) <= {f"{ALLOWED}:{site.port}"}, site.hits
    assert result.output.count("REPLY HTTP/1.") == 3, result.output


async def test_an_allowed_name_answering_an_embedded_private_address_is_refused() -> None:
    """IPv6 forms that carry an IPv4 address (6to4, NAT64, IPv4-compatible, SIIT) say where they lead:
    a loopback or private IPv4 inside is not public."""
    for private in ("2002:7f00:1::1", "2002:a9fe:a9fe::", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1",
                    "::7f00:1", "::ffff:0:7f00:1", "fec0::1", "[::ffff:7f00:1]", "::ffff:127.0.0.1%lo"):
        assert not address_is_public(private), private
    assert address_is_public("2002:5db8:d70e::1") and address_is_public("64:ff9b::5db8:d70e")


@requires_bwrap
async def test_idle_or_too_many_connections_do_not_hold_the_proxy(jail: Jail, site: LoopbackSite,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection the command opens is a descriptor in Echo Desk's own process: a command that
    opens many and never finishes a request must not hold them (a desktop's limit is often 1024: then
    the gateway, the database, every other command fail). Idle ones are closed after a while, and
    beyond a number the proxy takes no more at once."""
    from echo_desk.sandbox import proxy as proxy_module

    monkeypatch.setattr(proxy_module, "HEAD_TIMEOUT", 1.0, raising=False)
    monkeypatch.setattr(proxy_module, "MAX_CONNECTIONS", 8, raising=False)
    held = 20
    code = ("import os, socket, time\n"
            "port = int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1])\n"
            f"held = [socket.create_connection(('127.0.0.1', port)) for _ in range({held})]\n"
            "for h in held: h.sendall(b'GET http://x')\n"
            "closed, deadline = 0, time.monotonic() + 15\n"
            "for h in held:\n"
            " h.settimeout(max(0.01, deadline - time.monotonic()))\n"
            " try: h.recv(4096); closed += 1\n"
            " except ConnectionResetError: closed += 1\n"
            " except OSError: pass\n"
            "print('CLOSED', closed, flush=True)\n")
    command = f"{_PYTHON} -I -c \"{code}\"; " + _fetch(f"http://{ALLOWED}:{site.port}/ok")
    result = await run(tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"])),
                       {"command": command}, context(jail.workspace))
    assert f"CLOSED {held}" in result.output, result.output
    assert "hello-through-the-proxy" in result.output


def test_the_relay_takes_only_stream_sockets() -> None:
    """The command's end of the relay could send any descriptor: a pipe, a datagram socket... each is
    closed, none kept open in Echo Desk, and the proxy keeps serving."""
    import asyncio
    import socket

    from echo_desk.sandbox.proxy import DomainProxy

    async def scenario() -> None:
        proxy = DomainProxy(parse_rules(["example.test"]))
        ours, theirs = socket.socketpair()
        proxy.attach(ours)
        read_end, write_end = os.pipe()
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        before = len(os.listdir("/proc/self/fd"))
        socket.send_fds(theirs, [b"c"], [read_end, udp.fileno()])
        client, server = socket.socketpair()
        socket.send_fds(theirs, [b"c"], [server.fileno()])
        server.close()
        client.setblocking(False)
        client.sendall(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
        reply = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(client, 4096), 10)
        assert b"403" in reply
        await proxy.close()
        # Nothing received is left open (the relay end given to the proxy is closed, ``client`` is new).
        assert len(os.listdir("/proc/self/fd")) <= before
        for fd in (read_end, write_end):
            os.close(fd)
        udp.close()
        theirs.close()
        client.close()

    asyncio.run(scenario())


@requires_bwrap
async def test_a_datagram_pair_cannot_reach_a_local_socket(jail: Jail) -> None:
    """``socketpair`` makes Unix sockets without ``socket()``; a datagram one can still ``sendto`` or
    ``connect`` any datagram socket the read-only root shows (the journal, syslog, systemd's notify
    socket, an application's own). Streams and sequenced packets stay usable: they cannot be
    connected elsewhere."""
    import socket

    path = jail.base / "local-service.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.setblocking(False)
    code = ("import socket\n"
            "for kind in ('DGRAM', 'STREAM', 'SEQPACKET'):\n"
            " try:\n"
            "  a, b = socket.socketpair(socket.AF_UNIX, getattr(socket, 'SOCK_' + kind))\n"
            "  a.send(b'x'); print(kind, 'PAIR', b.recv(1).decode(), flush=True)\n"
            f"  a.sendto(b'escaped-' + kind.encode(), {str(path)!r}); print(kind, 'SENT', flush=True)\n"
            " except OSError as e: print(kind, 'REFUSED', e.errno, flush=True)\n")
    try:
        result = await run(tool_with(), {"command": f"{_PYTHON} -I -c \"{code}\""}, context(jail.workspace))
        try:
            received = listener.recv(100)
        except BlockingIOError:
            received = b""
    finally:
        listener.close()
    assert received == b"", (received, result.output)
    assert "DGRAM SENT" not in result.output and "DGRAM REFUSED" in result.output, result.output
    assert "STREAM PAIR x" in result.output and "SEQPACKET PAIR x" in result.output, result.output


@requires_bwrap
async def test_a_tunnel_reaches_only_the_host_it_names(jail: Jail, site: LoopbackSite) -> None:
    """Through ``CONNECT allowed:port`` the bytes that follow could name another site on the same
    server: a TLS name (SNI) or a Host header. Both must be the tunnel's own name."""
    tunnel = f"CONNECT {ALLOWED}:{site.port} HTTP/1.1\r\nHost: {ALLOWED}:{site.port}\r\n\r\n"
    requests = [(tunnel + "GET /a HTTP/1.1\r\nHost: evil.test\r\n\r\n").encode(),
                (tunnel + "\r\nGET http://evil.test/b HTTP/1.1\r\nHost: evil.test\r\n\r\n").encode(),
                (tunnel + f"GET /c HTTP/1.1\r\nHost: {ALLOWED}\r\n\r\nGET /d HTTP/1.1\r\nHost: evil.test\r\n\r\n").encode(),
                tunnel.encode() + _client_hello("evil.test"), tunnel.encode() + _client_hello(ALLOWED)]
    result = await run(tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"])),
                       {"command": _raw(requests)}, context(jail.workspace))
    assert "evil.test" not in site.hits, (site.hits, result.output)
    # /a and /c, their Host set by the proxy; not /b (another host), /d (a second request) or the TLS ones.
    assert site.hits == [f"{ALLOWED}:{site.port}"] * 2, (site.hits, result.output)
    assert "evil.test" in result.metadata["sandbox"]["refused_hosts"]


def _client_hello(name: str) -> bytes:
    """A TLS ClientHello naming ``name`` (enough of one for the proxy to read its SNI)."""
    encoded = name.encode()
    sni = b"\x00\x00" + (len(encoded) + 5).to_bytes(2, "big") + (len(encoded) + 3).to_bytes(2, "big") + b"\x00" + \
        len(encoded).to_bytes(2, "big") + encoded
    body = b"\x03\x03" + bytes(32) + b"\x00" + b"\x00\x02\x13\x01" + b"\x01\x00" + len(sni).to_bytes(2, "big") + sni
    handshake = b"\x01" + len(body).to_bytes(3, "big") + body
    return b"\x16\x03\x01" + len(handshake).to_bytes(2, "big") + handshake


@requires_bwrap
async def test_the_name_checked_is_the_name_resolved(jail: Jail, site: LoopbackSite,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``localhost\\0.api.example.test`` is under ``*.example.test`` as a string, but the system's
    resolver reads a C string and resolves ``localhost``: any name, public ones too, behind an
    allowed suffix. Here the real resolver, and a proxy that lets loopback through (only this test's
    site is there) to see where the name led."""
    from echo_desk.sandbox import proxy as proxy_module

    def make_proxy(rules: tuple[DomainRule, ...]) -> proxy_module.DomainProxy:
        made = proxy_module.DomainProxy(rules, address_allowed=lambda a: a == "127.0.0.1",
                                        address_is_ours=lambda a: False)  # the site plays a remote one
        site.proxies.append(made)
        return made

    monkeypatch.setattr(command_sandbox, "make_proxy", make_proxy)
    requests = [f"GET http://localhost\0.{ALLOWED}:{site.port}/a HTTP/1.1\r\n\r\n".encode("latin-1"),
                f"CONNECT localhost\0.{ALLOWED}:{site.port} HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".encode("latin-1"),
                f"CONNECT localhost%00.{ALLOWED}:{site.port} HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\n\r\n".encode()]
    result = await run(tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"])),
                       {"command": _raw(requests)}, context(jail.workspace))
    assert site.hits == [], (site.hits, result.output)
    assert result.metadata["sandbox"]["refused_hosts"] == [f"localhost\0.{ALLOWED}", f"localhost%00.{ALLOWED}"]


@requires_bwrap
async def test_an_address_of_this_computer_is_never_dialled(jail: Jail, site: LoopbackSite,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A computer with a public address of its own reaches its own services on it (whatever listens
    on 0.0.0.0: a database, a development server): an allowed name that resolves there must be
    refused though the address is public. Here loopback plays that public address."""
    from echo_desk.sandbox import proxy as proxy_module

    def make_proxy(rules: tuple[DomainRule, ...]) -> proxy_module.DomainProxy:
        made = proxy_module.DomainProxy(rules, resolve=lambda host, port: _loopback(), address_allowed=lambda a: True)
        site.proxies.append(made)
        return made

    async def _loopback() -> list[str]:
        return ["127.0.0.1"]

    monkeypatch.setattr(command_sandbox, "make_proxy", make_proxy)
    result = await run(tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"])),
                       {"command": _fetch(f"http://{ALLOWED}:{site.port}/ok")}, context(jail.workspace))
    assert site.hits == [], (site.hits, result.output)
    assert result.metadata["sandbox"]["refused_hosts"] == [ALLOWED]


def test_addresses_of_this_computer() -> None:
    from echo_desk.sandbox.domains import address_is_this_computer

    assert address_is_this_computer("127.0.0.1") and address_is_this_computer("127.0.0.2")
    assert not address_is_this_computer("198.51.100.7") and not address_is_this_computer("2001:db8::7")
