"""fetch_url against a loopback HTTP server: text extraction, caps, redirects, errors."""

from __future__ import annotations

import json

import pytest
from tool_test_helpers import LoopbackServer, MakeCtx, Route, run_tool

from echo_desk.agent.tools import FetchUrl
from echo_desk.agent.tools.web import MAX_BYTES, html_to_text
from echo_desk.tools import ErrorKind

PAGE = b"""<!doctype html><html><head><title>Echo  Page</title><style>p{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Hello</h1><p>First &amp; <b>bold</b>.</p>
<ul><li>one</li><li>two</li></ul><noscript>enable js</noscript></body></html>"""


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
        yield srv


async def test_html_json_and_charsets_become_text(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    page = await run_tool(FetchUrl(), {"url": f"{server.url}/page.html"}, make_ctx("fetch_url"))
    assert page.success
    assert "— Echo Page]" in page.output.splitlines()[0]
    assert "Hello\nFirst & bold.\none\ntwo" in page.output
    assert "secret" not in page.output and "color" not in page.output and "enable js" not in page.output
    data = await run_tool(FetchUrl(), {"url": f"{server.url}/data.json"}, make_ctx("fetch_url"))
    assert json.loads(data.output.split("\n", 1)[1]) == {"b": [1, 2], "a": "é"}
    latin = await run_tool(FetchUrl(), {"url": f"{server.url}/latin"}, make_ctx("fetch_url"))
    assert latin.output.endswith("café")


async def test_preview_shows_the_full_url(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    url = f"{server.url}/page.html?q=1#frag"
    preview = await FetchUrl().preview({"url": url}, make_ctx("fetch_url"))
    assert (preview.targets[0].kind, preview.targets[0].value) == ("url", url)


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
        "http:///nohost": (ErrorKind.VALIDATION, "no host"),
    }
    for url, (kind, words) in cases.items():
        result = await run_tool(FetchUrl(), {"url": url}, make_ctx("fetch_url"))
        assert (result.error_kind, words in result.error) == (kind, True), (url, result.error)
    ok = await run_tool(FetchUrl(), {"url": f"{server.url}/r/5"}, make_ctx("fetch_url"))
    assert ok.success and ok.output.endswith("arrivé") and ok.metadata["url"].endswith("/r/0")


async def test_timeout_is_reported_as_timeout(server: LoopbackServer, make_ctx: MakeCtx) -> None:
    result = await run_tool(FetchUrl(), {"url": f"{server.url}/slow", "timeout_seconds": 1}, make_ctx("fetch_url"))
    assert result.error_kind is ErrorKind.TIMEOUT


def test_html_to_text_keeps_blocks_apart() -> None:
    title, text = html_to_text("<title> T </title><div>a</div><div>b<br>c</div>")
    assert (title, text) == ("T", "a\nb\nc")
