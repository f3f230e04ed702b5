"""Network of sandboxed commands: none by default; with allowed domains, a proxy in Echo Desk that
lets exactly those through and reports every refused host. Traffic goes to loopback only: the
allowed test name is mapped to the test's own loopback server by the proxy's resolver."""

from __future__ import annotations

import http.server
import os
import sys
import threading
from collections.abc import Iterator

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.builtins.shell import command_sandbox
from echo_desk.sandbox.domains import BadDomain, DomainRule, address_is_public, host_allowed, parse_rules
from echo_desk.sandbox.proxy import DomainProxy
from echo_desk.store.settings import WorkspaceSandbox

ALLOWED = "api.example.test"


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


def test_only_public_addresses_are_dialled() -> None:
    for private in ("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
                    "0.0.0.0", "::1", "fc00::1", "fe80::1", "::ffff:127.0.0.1", "224.0.0.1", "not-an-ip"):
        assert not address_is_public(private), private
    assert address_is_public("93.184.215.14") and address_is_public("2606:4700::1111")


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        _Counting.hits.append(self.headers.get("Host", ""))
        body = b"hello-through-the-proxy"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    _Counting.hits = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    async def resolve(host: str, port: int) -> list[str]:
        if host == ALLOWED:
            return ["127.0.0.1"]
        raise OSError(f"{host}: no such test name")

    def make(rules: tuple[DomainRule, ...]) -> DomainProxy:
        return DomainProxy(rules, resolve=resolve, address_allowed=lambda a: a == "127.0.0.1")

    monkeypatch.setattr(command_sandbox, "make_proxy", make)
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def _fetch(url: str) -> str:
    code = ("import sys, urllib.request, urllib.error\n"
            "try:\n print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())\n"
            "except urllib.error.HTTPError as e:\n print('HTTP', e.code, e.read().decode())\n"
            "except Exception as e:\n print('FAILED', type(e).__name__, e)\n")
    # The interpreter itself, not a venv's link to it: a venv under /tmp is hidden by the
    # sandbox's private /tmp (this needs only the standard library).
    return f"{os.path.realpath(sys.executable)} -I -c \"{code}\" {url}"


@requires_bwrap
async def test_an_allowed_domain_is_reached_and_others_are_refused_and_reported(jail: Jail, server: int) -> None:
    tool = tool_with(default=WorkspaceSandbox(allowed_domains=["*.example.test"]))
    command = "; ".join([_fetch(f"http://{ALLOWED}:{server}/ok"), _fetch(f"http://evil.test:{server}/no"),
                         _fetch(f"http://10.1.2.3:{server}/ip"), _fetch(f"https://other.example.org:{server}/")])
    ctx = context(jail.workspace)
    result = await run(tool, {"command": command}, ctx)
    assert result.success, result.error
    assert "hello-through-the-proxy" in result.output
    assert _Counting.hits == [f"{ALLOWED}:{server}"]  # nothing else reached the server
    assert result.metadata["sandbox"]["refused_hosts"] == ["evil.test", "10.1.2.3", "other.example.org"]
    assert "network access refused for: evil.test, 10.1.2.3, other.example.org" in result.output
    assert ctx.preview is not None
    assert [t.detail for t in ctx.preview.targets if t.kind == "sandbox"] == ["network: only *.example.test"]


@requires_bwrap
async def test_without_domains_there_is_no_network_and_no_proxy(jail: Jail, server: int) -> None:
    command = "env | grep -i proxy; " + _fetch(f"http://{ALLOWED}:{server}/ok") + "; " + _fetch(
        f"http://127.0.0.1:{server}/direct")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert "proxy=" not in result.output.lower()
    assert result.output.count("FAILED") == 2 and _Counting.hits == []
    assert result.metadata["sandbox"]["network"] == "none"
