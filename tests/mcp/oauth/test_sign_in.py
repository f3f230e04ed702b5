"""Signing in to a guarded MCP server against real authorization servers on loopback."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from echo_desk.mcp.oauth import SignIns
from echo_desk.mcp.status import ServerState
from tests.mcp.oauth.browser import Browser
from tests.mcp.oauth.conftest import World


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


async def test_dynamic_registration_with_the_sdk_server(make_manager, world: World) -> None:
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
