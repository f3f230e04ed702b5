"""A signed-in server over time: renewal, a revoked refresh token, a new authorization server,
more consent (insufficient_scope), and signing out — through the manager, as the app uses it."""

from __future__ import annotations

from echo_desk.mcp.oauth import SignIns
from echo_desk.mcp.status import ServerState
from echo_desk.tools import ErrorKind, NullToolHost, ToolExecutionContext
from tests.mcp.helpers import get_tool
from tests.mcp.oauth.browser import Browser
from tests.mcp.oauth.conftest import World


async def _signed_in(world: World, make_manager, registry=None):  # type: ignore[no-untyped-def]
    manager = make_manager({"remote": world.config()})
    await manager.start_all()
    browser = Browser()
    status = await manager.sign_in("remote", browser.open)
    browser.join()
    assert status.state is ServerState.CONNECTED, (status.detail, browser.errors)
    return manager


async def _call(manager, registry):  # type: ignore[no-untyped-def]
    tool = get_tool(registry, "remote__whoami")
    return await tool.execute({}, ToolExecutionContext(call_id="c", tool_name="remote__whoami", scope_id="t",
                                                       host=NullToolHost()))


async def test_a_token_about_to_end_is_renewed_before_it_is_sent(world: World, make_manager, registry) -> None:
    world.sdk.expires_in = 30  # inside the renewal margin from the start
    manager = await _signed_in(world, make_manager)
    rejected_before = world.guard.rejected
    await manager.restart("remote")
    assert manager.status("remote").state is ServerState.CONNECTED
    assert world.sdk.token_grants.count("refresh_token") >= 1
    assert world.guard.rejected == rejected_before  # the old token was never refused: it was not sent


async def test_a_token_the_server_ended_early_is_renewed_on_401(world: World, make_manager, registry) -> None:
    manager = await _signed_in(world, make_manager)
    world.sdk.expire_access_tokens()
    result = await _call(manager, registry)
    assert result.success, result.error
    assert world.sdk.token_grants.count("refresh_token") == 1
    kept = SignIns().current("remote")
    assert kept is not None and kept.tokens is not None and kept.tokens.access_token in world.sdk.access


async def test_a_revoked_refresh_token_asks_the_person_to_sign_in_again(world: World, make_manager, registry) -> None:
    manager = await _signed_in(world, make_manager)
    world.sdk.refresh.clear()  # revoked at the service
    world.sdk.expire_access_tokens()
    result = await _call(manager, registry)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    status = manager.status("remote")
    assert status.state is ServerState.NEEDS_SIGN_IN and "sign in again" in status.detail
    kept = SignIns().current("remote")
    assert kept is not None and kept.tokens is None and kept.client.client_id  # registration kept, tokens gone


async def test_a_new_authorization_server_gets_its_own_sign_in(world: World, make_manager) -> None:
    manager = await _signed_in(world, make_manager)
    old = SignIns().current("remote")
    assert old is not None and old.tokens is not None
    world.use_authlib()  # the server now trusts another sign-in service
    status = await manager.restart("remote")
    assert status.state is ServerState.NEEDS_SIGN_IN
    browser = Browser()
    status = await manager.sign_in("remote", browser.open)
    browser.join()
    assert status.state is ServerState.CONNECTED, status.detail
    new = SignIns().current("remote")
    assert new is not None and new.issuer == world.authlib.issuer and new.client.client_id != old.client.client_id
    sent = [value for request in world.authlib.state.token_requests for value in request.values()]
    assert old.tokens.refresh_token not in sent and old.client.client_id not in sent
    assert SignIns().for_issuer("remote", world.sdk_issuer) is not None  # kept apart, keyed by issuer


async def test_insufficient_scope_asks_for_more_consent(world: World, make_manager, registry) -> None:
    world.use_authlib()
    manager = await _signed_in(world, make_manager)
    world.guard.required_scopes = ["read", "write"]
    result = await _call(manager, registry)
    assert not result.success and "more permissions" in result.error
    status = manager.status("remote")
    assert status.state is ServerState.NEEDS_SIGN_IN and "write" in status.detail
    browser = Browser()
    status = await manager.sign_in("remote", browser.open)
    browser.join()
    assert status.state is ServerState.CONNECTED, status.detail
    asked = world.authlib.state.authorize_requests[-1]["scope"].split()
    assert "read" in asked and "write" in asked
    assert (await _call(manager, registry)).success


async def test_sign_out_revokes_at_the_service_and_forgets(world: World, make_manager) -> None:
    world.use_authlib()
    manager = await _signed_in(world, make_manager)
    kept = SignIns().current("remote")
    assert kept is not None and kept.tokens is not None
    result = await manager.sign_out("remote")
    assert result.revoked and not result.problem
    assert kept.tokens.access_token in world.authlib.state.revoked
    assert SignIns().current("remote") is None
    status = manager.status("remote")
    assert status.state is ServerState.NEEDS_SIGN_IN and status.sign_in is None
