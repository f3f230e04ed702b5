"""Signing in to a guarded MCP server against real authorization servers on loopback."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from echo_desk.mcp.oauth import (
    ClientSettings,
    SignIn,
    SignInError,
    SignIns,
    SignInStep,
    client_metadata_document,
    origins,
    sign_in,
)
from echo_desk.mcp.oauth.discovery import Challenge
from echo_desk.mcp.status import ServerState
from tests.mcp.oauth.browser import Browser
from tests.mcp.oauth.conftest import World
from tests.mcp.oauth.serving import Served


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


async def test_dynamic_registration_with_the_sdk_server(world: World, make_manager) -> None:
    manager = make_manager({"remote": world.config()})
    [status] = await manager.start_all()
    assert status.state is ServerState.NEEDS_SIGN_IN, status.detail
    browser = Browser()
    status = await manager.sign_in("remote", browser.open)
    browser.join()
    assert status.state is ServerState.CONNECTED, (status.detail, browser.errors)
    assert [t.original_name for t in status.tools] == ["whoami"]
    asked = _query(browser.opened[0])
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43
    assert asked["resource"] == world.guard.resource
    assert asked["redirect_uri"].startswith("http://127.0.0.1:") and len(asked["state"]) >= 32
    assert len(world.sdk.registrations) == 1
    kept = SignIns().current("remote")
    assert kept is not None and kept.issuer == world.sdk_issuer and kept.client.registered_by == "dynamic"
    assert status.sign_in is not None and status.sign_in.issuer == world.sdk_issuer


async def _sign_in(world: World, browser: Browser | None = None, **settings: str) -> SignIn:
    browser = browser or Browser()
    try:
        return await sign_in("remote", world.mcp_url, ClientSettings(**settings), browser.open, browser_wait=20)
    finally:
        browser.join()


async def test_dynamic_registration_with_authlib_checks_iss(world: World) -> None:
    world.use_authlib()
    browser = Browser()
    kept = await _sign_in(world, browser)
    assert kept.issuer == world.authlib.issuer and kept.client.registered_by == "dynamic"
    assert len(world.authlib.state.registrations) == 1
    # Authlib sends iss (RFC 9207) and advertises it; the answer carried it.
    assert any("iss=" in url for url in browser.visited if "/callback" in url)
    token_request = world.authlib.state.token_requests[-1]
    assert token_request["resource"] == world.guard.resource and token_request["code_verifier"]


async def test_pasted_client_id_and_secret(world: World) -> None:
    world.use_authlib()
    world.authlib.add_client("echo-desk-by-hand", secret="s3cret-value")
    kept = await _sign_in(world, client_id="echo-desk-by-hand", client_secret="s3cret-value")
    assert kept.client.registered_by == "pasted" and kept.client.auth_method == "client_secret_basic"
    assert world.authlib.state.registrations == []  # nothing registered dynamically
    assert "client_secret" not in world.authlib.state.token_requests[-1]  # sent as HTTP Basic


async def test_client_id_metadata_document(world: World) -> None:
    world.use_authlib()

    def doc_app(url: str) -> Starlette:
        async def document(request: Request) -> JSONResponse:
            return JSONResponse(client_metadata_document(f"{url}/echo-desk/client.json"))

        return Starlette(routes=[Route("/echo-desk/client.json", document)])

    with Served(doc_app) as docs:
        url = f"{docs.url}/echo-desk/client.json"
        kept = await _sign_in(world, client_metadata_url=url)
    assert kept.client.registered_by == "metadata_document" and kept.client.client_id == url
    assert world.authlib.state.fetched_metadata_documents == [url]
    assert world.authlib.state.registrations == []


async def test_state_mismatch_is_refused(world: World) -> None:
    with pytest.raises(SignInError) as info:
        await _sign_in(world, Browser(tamper={"state": "forged-state"}))
    assert info.value.step is SignInStep.CALLBACK and "state" in str(info.value)
    assert SignIns().current("remote") is None
    assert world.sdk.token_grants == []  # the code was never exchanged


async def test_iss_mismatch_is_refused(world: World) -> None:
    world.use_authlib()
    world.authlib.state.hostile.add("wrong_iss")
    with pytest.raises(SignInError) as info:
        await _sign_in(world)
    assert info.value.step is SignInStep.CALLBACK and "impostor.example" in str(info.value)
    assert world.authlib.state.token_requests == []


async def test_declined_in_the_browser(world: World) -> None:
    world.use_authlib()
    with pytest.raises(SignInError) as info:
        await _sign_in(world, Browser(decision="deny"))
    assert info.value.step is SignInStep.BROWSER and "declined" in str(info.value)


async def test_registration_that_redirects_elsewhere_is_refused(world: World) -> None:
    world.sdk.hostile.add("foreign_redirect")
    browser = Browser()
    with pytest.raises(SignInError) as info:
        await _sign_in(world, browser)
    assert info.value.step is SignInStep.REGISTRATION and "collector.example" in str(info.value)
    assert browser.opened == []  # the browser never opened


async def test_token_for_another_resource_is_refused(world: World) -> None:
    world.use_authlib()
    world.authlib.state.hostile.add("wrong_audience")
    with pytest.raises(SignInError) as info:
        await _sign_in(world)
    assert info.value.step is SignInStep.TOKEN and "other.example" in str(info.value)
    assert SignIns().current("remote") is None


async def test_plain_http_metadata_is_refused_outside_tests(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(origins, "_allow_loopback_http", False)
    with pytest.raises(SignInError) as info:
        await _sign_in(world)
    assert info.value.step is SignInStep.DISCOVERY and "https" in str(info.value)


def _metadata_app(body: bytes, status: int = 200, location: str = "") -> Callable[[str], Starlette]:
    def make(url: str) -> Starlette:
        async def answer(request: Request) -> Response:
            headers = {"location": location} if location else {}
            return Response(body, status_code=status, media_type="application/json", headers=headers)

        return Starlette(routes=[Route("/.well-known/{rest:path}", answer)])

    return make


@pytest.mark.parametrize(("body", "status", "location", "expected"), [
    (b'{"resource": "x", "authorization_servers": []}', 200, "", "not valid metadata"),
    (b"[1, 2, 3]", 200, "", "JSON object"),
    (b'{"a": "' + b"x" * (1024 * 1024) + b'"}', 200, "", "larger than"),
    (b"", 302, "http://169.254.169.254/latest", "redirects are not followed"),
])
async def test_hostile_resource_metadata(world: World, body: bytes, status: int, location: str, expected: str) -> None:
    with Served(_metadata_app(body, status, location)) as bad:
        with pytest.raises(SignInError) as info:
            await sign_in("remote", world.mcp_url, ClientSettings(), Browser().open,
                          challenge=Challenge(resource_metadata=f"{bad.url}/.well-known/oauth-protected-resource",
                                              scope=None, error=None))
    assert info.value.step is SignInStep.DISCOVERY and expected in str(info.value)
