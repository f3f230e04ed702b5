"""fetch_url against a loopback HTTP server: text extraction, caps, redirects, errors."""

from __future__ import annotations

import json

import httpx
import pytest
from tool_test_helpers import LoopbackServer, MakeCtx, Route, run_tool

from echo_desk.builtins import FetchUrl
from echo_desk.builtins.web.fetch_url import MAX_BYTES, html_to_text
from echo_desk.tools import ErrorKind, Protection, ProtectionReason, ToolExecutionContext

PAGE = b"""<!doctype html><html><head><title>Echo  Page</title><style>p{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Hello</h1><p>First &amp; <b>bold</b>.</p>
<ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>"""


def approved(make_ctx: MakeCtx) -> ToolExecutionContext:
    """The loopback test server is a local address: these calls are ones the person approved."""
    return make_ctx("fetch_url", approved_by_person=True)


def _redirect(path: str) -> Route:
    left = int(path.rsplit("/", 1)[1])
    if left == 0:
        return 200, {"Content-Type": "text/plain; charset=utf-8"}, "arrivé".encode()
    return 302, {"Location": f"/r/{left - 1}"}, b""


@pytest.fixture
def server() -> LoopbackServer:
    routes: dict[str, Route | object] = {
        "/page.html": (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE),
        "/data.json": (200, {"Content-Type": "application/json"}, b'{"b": [1, 2], "a": "\xc3\xa9"}'),
        "/latin": (200, {"Content-Type": "text/plain; charset=iso-8859-1"}, "café".encode("latin-1")),
        "/image.png": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n"),
        "/big.txt": (200, {"Content-Type": "text/plain"}, b"a" * (MAX_BYTES + 1)),
        "/500": (500, {"Content-Type": "text/plain"}, b"boom"),
        "/to-file": (302, {"Location": "file:///etc/passwd"}, b""),
        "/slow": (200, {"Content-Type": "text/plain"}, b"late"),
    }
    for n in range(0, 12):
        routes[f"/r/{n}"] = _redirect
    with LoopbackServer(routes) as srv:  # type: ignore[arg-type]
        port = srv.server.server_address[1]
        srv.routes["/to-localhost"] = (302, {"Location": f"http://localhost:{port}/page.html"}, b"")
        yield srv


async def test_html_json_and_charsets_become_text(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    page = await run_tool(FetchUrl(), {"url": f"{server.url}/page.html"}, approved(make_ctx))
    assert page.success
    assert "— Echo Page]" in page.output.splitlines()[0]
    assert "Hello\nFirst & bold.\none\ntwo" in page.output
    assert "secret" not in page.output and "color" not in page.output and "enable js" not in page.output
    data = await run_tool(FetchUrl(), {"url": f"{server.url}/data.json"}, approved(make_ctx))
    assert json.loads(data.output.split("\n", 1)[1]) == {"b": [1, 2], "a": "é"}
    latin = await run_tool(FetchUrl(), {"url": f"{server.url}/latin"}, approved(make_ctx))
    assert latin.output.endswith("café")


async def test_preview_shows_the_full_url_as_sent(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    url = f"{server.url}/docs/../page.html?q=1#frag"
    preview = await FetchUrl().preview({"url": url}, approved(make_ctx))
    # The request goes to /page.html?q=1 (a fragment is never sent): that is what the person sees.
    assert (preview.targets[0].kind, preview.targets[0].value) == ("url", f"{server.url}/page.html?q=1")
    assert preview.targets[0].protections == (
        Protection(reason=ProtectionReason.LOCAL_NETWORK, host="127.0.0.1", addresses=("127.0.0.1",)),)
    assert preview.targets[0].full_detail == "protected: 127.0.0.1 is this computer or its local network (127.0.0.1)"


async def test_limits_and_failures_have_the_right_kind(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    cases = {
        f"{server.url}/image.png": (ErrorKind.BUSINESS, "not text"),
        f"{server.url}/big.txt": (ErrorKind.BUSINESS, "larger than"),
        f"{server.url}/missing": (ErrorKind.BUSINESS, "HTTP 404"),
        f"{server.url}/500": (ErrorKind.DEPENDENCY, "HTTP 500"),
        f"{server.url}/r/11": (ErrorKind.BUSINESS, "redirects"),
        f"{server.url}/to-file": (ErrorKind.BUSINESS, "unsupported URL"),
        "http://127.0.0.1:9/closed": (ErrorKind.DEPENDENCY, "could not fetch"),
        "file:///etc/passwd": (ErrorKind.VALIDATION, "only http and https"),
        "ftp://example.org/x": (ErrorKind.VALIDATION, "only http and https"),
        "javascript:alert(1)": (ErrorKind.VALIDATION, "only http and https"),
        "http:///nohost": (ErrorKind.VALIDATION, "a host after the scheme"),
    }
    for url, (kind, words) in cases.items():
        result = await run_tool(FetchUrl(), {"url": url}, approved(make_ctx))
        assert (result.error_kind, words in result.error) == (kind, True), (url, result.error)
    ok = await run_tool(FetchUrl(), {"url": f"{server.url}/r/5"}, approved(make_ctx))
    assert ok.success and ok.output.endswith("arrivé") and ok.metadata["url"].endswith("/r/0")


async def test_timeout_is_reported_as_timeout(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    result = await run_tool(FetchUrl(), {"url": f"{server.url}/slow", "timeout_seconds": 1}, approved(make_ctx))
    assert result.error_kind is ErrorKind.TIMEOUT


def test_html_to_text_keeps_blocks_apart() -> None:
    title, text = html_to_text("<title> T </title><div>a</div><div>b<br>c</div>")
    assert (title, text) == ("T", "a\nb\nc")


async def test_a_local_address_is_fetched_only_after_the_person_approved_it(
    server: LoopbackServer, make_ctx: MakeCtx
) -> None:
    url = f"{server.url}/page.html"
    for ctx in (make_ctx("fetch_url"), make_ctx("fetch_url", approved_by_person="maybe")):
        refused = await run_tool(FetchUrl(), {"url": url}, ctx)
        assert refused.error_kind is ErrorKind.BUSINESS and "not fetched: 127.0.0.1" in refused.error
    # Approved, but without a preview that showed the address: still refused.
    blind = await run_tool(FetchUrl(), {"url": url}, approved(make_ctx), with_preview=False)
    assert blind.error_kind is ErrorKind.BUSINESS
    assert server.requests == []
    assert (await run_tool(FetchUrl(), {"url": url}, approved(make_ctx))).success


async def test_a_redirect_to_another_local_host_is_refused(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    result = await run_tool(FetchUrl(), {"url": f"{server.url}/to-localhost"}, approved(make_ctx))
    assert result.error_kind is ErrorKind.BUSINESS and "not fetched: localhost" in result.error
    assert server.requests == ["/to-localhost"]


@pytest.mark.parametrize("local", ["127.1", "0x7f000001", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254",
                                   "10.0.0.8", "192.168.1.1", "localhost", "0.0.0.0"])
async def test_every_spelling_of_a_local_address_is_marked(local: str, make_ctx: MakeCtx) -> None:
    preview = await FetchUrl().preview({"url": f"http://{local}/x"}, make_ctx("fetch_url"))
    assert [p.reason for p in preview.targets[0].protections] == [ProtectionReason.LOCAL_NETWORK]


async def test_a_public_address_needs_no_approval_but_may_not_redirect_inside(make_ctx: MakeCtx) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/inside":
            return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})
        return httpx.Response(200, headers={"Content-Type": "text/plain"}, text="public text")

    tool = FetchUrl(transport=httpx.MockTransport(answer))
    public = await run_tool(tool, {"url": "http://93.184.216.34/page"}, make_ctx("fetch_url"))
    assert public.success and public.output.endswith("public text")
    assert (await tool.preview({"url": "http://93.184.216.34/page"}, make_ctx("fetch_url"))).targets[0].detail == ""
    inside = await run_tool(tool, {"url": "http://93.184.216.34/inside"}, make_ctx("fetch_url"))
    assert inside.error_kind is ErrorKind.BUSINESS and "not fetched: 169.254.169.254" in inside.error


async def test_an_approved_local_origin_does_not_cover_another_port_on_that_host(
    server: LoopbackServer, make_ctx: MakeCtx
) -> None:
    """Issue 20 #15: approving http://127.0.0.1:A let a redirect reach 127.0.0.1:B/admin."""
    with LoopbackServer({"/admin": (200, {"Content-Type": "text/plain"}, b"other service")}) as other:
        server.routes["/elsewhere"] = (302, {"Location": f"{other.url}/admin"}, b"")
        result = await run_tool(FetchUrl(), {"url": f"{server.url}/elsewhere"}, approved(make_ctx))
        assert result.error_kind is ErrorKind.BUSINESS
        assert f"goes to {other.url} only when" in result.error
        assert other.requests == []
        # The very origin that was shown and approved is still fetched, on any path.
        server.routes["/same-origin"] = (302, {"Location": "/page.html"}, b"")
        same = await run_tool(FetchUrl(), {"url": f"{server.url}/same-origin"}, approved(make_ctx))
        assert same.success and same.metadata["url"] == f"{server.url}/page.html"


class _Trickle:
    """A loopback server that sends its headers, then one body byte every 0.2 s, forever."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/drip"

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
            try:
                while not self.stop.wait(0.2):
                    conn.sendall(b"x")
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)


async def test_a_trickling_server_is_stopped_at_the_total_deadline_and_reported_as_timeout(
    make_ctx: MakeCtx,
) -> None:
    """Issue 20 #15: 1 byte/s ran 77 s despite timeout_seconds 5 and was reported as cancelled."""
    import time

    drip = _Trickle()
    try:
        started = time.monotonic()
        result = await run_tool(FetchUrl(), {"url": drip.url, "timeout_seconds": 1}, approved(make_ctx))
        elapsed = time.monotonic() - started
    finally:
        drip.close()
    assert result.error_kind is ErrorKind.TIMEOUT, result
    assert "within 1 s" in result.error
    assert elapsed < 4.0, f"the 1 s deadline took {elapsed:.1f} s"
