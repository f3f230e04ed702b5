"""Tool and server icons: data: and https: only, raster images only, https under fetch_url's
guard (no local hosts, every redirect checked), size-capped, cached in memory and on disk."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path

import httpx
import mcp_types as types
import pytest

from echo_desk.mcp.config import parse_server
from echo_desk.mcp.icons import MAX_ICON_BYTES, IconCache, IconFetchRefused, choose, fetch_https, image_type
from echo_desk.mcp.status import ServerState
from tests.mcp.helpers import TINY_SERVER, get_tool, wait_until

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def _icons(*srcs: str, mime: str | None = None) -> list[types.Icon]:
    return [types.Icon(src=s, mime_type=mime) for s in srcs]


async def test_a_servers_and_its_tools_data_icons_reach_the_catalog(make_manager, registry) -> None:
    manager = make_manager({"t": parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                                                    "env": {"TINY_ICONS": "1"}})})
    [status] = await manager.start_all()
    assert status.state is ServerState.CONNECTED, status.detail
    await wait_until(lambda: manager.status("t").icon is not None, 10)
    assert manager.status("t").icon == PNG
    assert get_tool(registry, "t__echo").display_icon == PNG  # the http one before it was skipped
    # sleep names an SVG (refused) and an https icon on this computer (refused by the guard)
    assert get_tool(registry, "t__sleep").display_icon is None


@pytest.mark.parametrize(("icons", "chosen"), [
    (_icons("http://example.com/a.png"), None),
    (_icons("file:///etc/passwd"), None),
    (_icons("javascript:alert(1)"), None),
    (_icons("data:image/svg+xml,<svg/>"), None),
    (_icons("https://example.com/a.svg", mime="image/svg+xml"), None),
    (_icons("https://example.com/" + "a" * 9000), None),
    (_icons("data:image/svg+xml,<svg/>", "https://example.com/a.png"), "https://example.com/a.png"),
    ([types.Icon(src="https://e.com/dark.png", theme="dark"), types.Icon(src="https://e.com/light.png")],
     "https://e.com/light.png"),
])
def test_which_icon_is_chosen(icons, chosen) -> None:
    assert choose(icons) == chosen


def test_only_raster_signatures_count_as_images() -> None:
    assert image_type(PNG) == "image/png"
    assert image_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert image_type(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert image_type(b"<svg onload='x()'/>") is None
    assert image_type(b"<html>") is None


class _Web:
    """What the public web would answer, as an httpx transport (the test is offline); it
    records every request, so a refusal before any request shows."""

    def __init__(self, answers: dict[str, httpx.Response]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def transport(self) -> httpx.MockTransport:
        def handle(request: httpx.Request) -> httpx.Response:
            self.asked.append(str(request.url))
            return self.answers.get(str(request.url), httpx.Response(404))

        return httpx.MockTransport(handle)


def _redirect(to: str) -> httpx.Response:
    return httpx.Response(302, headers={"location": to})


@pytest.mark.parametrize(("src", "answers", "asked"), [
    ("https://127.0.0.1/a.png", {}, []),  # this computer: refused before any request
    ("https://10.1.2.3/a.png", {}, []),  # the local network
    ("https://[::1]/a.png", {}, []),
    ("https://icons.invalid/a.png", {"https://icons.invalid/a.png": _redirect("https://169.254.169.254/latest")},
     ["https://icons.invalid/a.png"]),  # a redirect inside is checked again
    ("https://icons.invalid/a.png", {"https://icons.invalid/a.png": _redirect("http://icons.invalid/a.png")},
     ["https://icons.invalid/a.png"]),  # and must stay https
])
async def test_the_guard_refuses_local_hosts_and_plain_http(src, answers, asked) -> None:
    web = _Web(answers)
    with pytest.raises(IconFetchRefused):
        await fetch_https(src, transport=web.transport())
    assert web.asked == asked


async def test_a_big_answer_is_cut_off_and_not_shown(tmp_path: Path) -> None:
    web = _Web({"https://icons.invalid/big.png": httpx.Response(200, content=PNG + b"\0" * MAX_ICON_BYTES)})
    with pytest.raises(IconFetchRefused, match="larger than"):
        await fetch_https("https://icons.invalid/big.png", transport=web.transport())
    cache = IconCache(tmp_path, transport=web.transport())
    assert await cache.load("https://icons.invalid/big.png") is None
    assert await asyncio.to_thread(lambda: list(tmp_path.iterdir())) == []


async def test_a_page_that_is_not_an_image_is_not_shown(tmp_path: Path) -> None:
    web = _Web({"https://icons.invalid/a.png": httpx.Response(200, content=b"<html>login</html>")})
    assert await IconCache(tmp_path, transport=web.transport()).load("https://icons.invalid/a.png") is None


async def test_a_loaded_icon_is_kept_on_disk_and_not_fetched_again(tmp_path: Path) -> None:
    src = "https://icons.invalid/a.png"
    web = _Web({src: _redirect("https://cdn.invalid/a.png"), "https://cdn.invalid/a.png": httpx.Response(200, content=PNG)})
    first = IconCache(tmp_path, transport=web.transport())
    assert await first.load(src) == PNG and await first.load(src) == PNG
    assert web.asked == [src, "https://cdn.invalid/a.png"]  # once, the redirect followed
    offline = _Web({})
    assert await IconCache(tmp_path, transport=offline.transport()).load(src) == PNG
    assert offline.asked == []


@pytest.mark.parametrize("src", [
    "data:image/png;base64,@@@",
    "data:image/png;base64," + base64.b64encode(b"\0" * (MAX_ICON_BYTES + 10)).decode(),
    "data:image/png;base64," + base64.b64encode(b"<svg/>").decode(),
])
async def test_a_bad_data_icon_is_not_shown(src: str) -> None:
    assert await IconCache(None).load(src) is None
