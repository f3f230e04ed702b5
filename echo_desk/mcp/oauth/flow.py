"""Signing in to one MCP server: discovery, registration, the browser, the code, the tokens.

``sign_in`` is the whole interactive flow; ``open_url`` shows the authorization page (the app
opens the browser, the CLI prints the URL when there is no display). ``sign_out`` revokes at
the service when it can and forgets locally.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.oauth2 import PKCEParameters
from mcp.client.auth.utils import (
    get_client_metadata_scopes,
    union_scopes,
    validate_authorization_response_iss,
)

from echo_desk.i18n import N_
from echo_desk.mcp.oauth import exchange
from echo_desk.mcp.oauth.discovery import Challenge, Discovered, discover
from echo_desk.mcp.oauth.errors import SignInError, SignInStep
from echo_desk.mcp.oauth.http import new_client
from echo_desk.mcp.oauth.loopback import LoopbackReceiver
from echo_desk.mcp.oauth.registration import ClientSettings, register
from echo_desk.mcp.oauth.tokens import SignIn, SignIns

#: How long the browser step may take (a person reads, types a password, approves).
BROWSER_WAIT_SECONDS = 300.0

OpenUrl = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class SignOutResult:
    #: The service was asked to revoke the tokens and agreed.
    revoked: bool
    #: Why it was not asked or did not agree (``SignInError.text``), empty otherwise.
    problem: str = ""


def _scope(discovered: Discovered, settings: ClientSettings, extra: str | None, previous: SignIn | None) -> str | None:
    scope = get_client_metadata_scopes(discovered.challenge.scope, discovered.protected, discovered.metadata,
                                       ["authorization_code", "refresh_token"])
    scope = union_scopes(scope, settings.scope or None)
    if extra:  # more consent asked (insufficient_scope): keep what was granted, add what is asked
        granted = previous.tokens.scope if previous is not None and previous.tokens is not None else None
        scope = union_scopes(union_scopes(granted, scope), extra)
    return scope


def _port_of(previous: SignIn | None) -> int:
    """The loopback port a kept dynamic registration names (services that match redirect URIs
    exactly accept only it); 0 for a random one."""
    if previous is None or previous.client.registered_by != "dynamic" or not previous.client.redirect_uris:
        return 0
    return urlsplit(previous.client.redirect_uris[0]).port or 0


async def _listen(previous: SignIn | None) -> LoopbackReceiver:
    port = _port_of(previous)
    if port:
        try:
            return await LoopbackReceiver(port).__aenter__()
        except OSError:
            pass  # taken now: a random port and a new registration
    return await LoopbackReceiver().__aenter__()


async def sign_in(
    server: str,
    server_url: str,
    settings: ClientSettings,
    open_url: OpenUrl,
    *,
    extra_scope: str | None = None,
    challenge: Challenge | None = None,
    store: SignIns | None = None,
    browser_wait: float = BROWSER_WAIT_SECONDS,
) -> SignIn:
    """Sign in to ``server`` and keep the tokens; raises ``SignInError`` naming the failed step."""
    store = store or SignIns()
    async with new_client() as http:
        discovered = await discover(http, server_url, challenge)
        previous = await asyncio.to_thread(store.for_issuer, server, discovered.issuer)
        scope = _scope(discovered, settings, extra_scope, previous)
        receiver = await _listen(previous)
        try:
            client = await register(http, discovered, settings, receiver.redirect_uri, previous, scope)
            pkce = PKCEParameters.generate()
            state = secrets.token_urlsafe(32)
            query = {
                "response_type": "code", "client_id": client.client_id, "redirect_uri": receiver.redirect_uri,
                "state": state, "code_challenge": pkce.code_challenge, "code_challenge_method": "S256",
                "resource": discovered.resource,
            }
            if scope:
                query["scope"] = scope
            endpoint = str(discovered.metadata.authorization_endpoint)
            await open_url(f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(query)}")
            try:
                answer = await asyncio.wait_for(receiver.answer(), browser_wait)
            except TimeoutError:
                raise SignInError(SignInStep.BROWSER, N_("no answer from the browser within {minutes} minutes"),
                                  minutes=round(browser_wait / 60)) from None
        finally:
            await receiver.__aexit__(None, None, None)
        code = _check_answer(answer, state, discovered)
        tokens = await exchange.exchange_code(
            http, str(discovered.metadata.token_endpoint), client, code=code, verifier=pkce.code_verifier,
            redirect_uri=receiver.redirect_uri, resource=discovered.resource, scope=scope,
        )
    revocation = discovered.metadata.revocation_endpoint
    result = SignIn(server=server, issuer=discovered.issuer, resource=discovered.resource,
                    token_endpoint=str(discovered.metadata.token_endpoint),
                    revocation_endpoint=str(revocation) if revocation else None, client=client, tokens=tokens)
    await asyncio.to_thread(store.save, result)
    return result


def _check_answer(answer: dict[str, str], state: str, discovered: Discovered) -> str:
    """The code of a genuine answer: its ``state`` ours, its ``iss`` the issuer (RFC 9207)."""
    if not secrets.compare_digest(answer.get("state", ""), state):
        raise SignInError(SignInStep.CALLBACK, N_("the answer's state does not match the one Echo Desk sent; "
                                                  "it may not come from this sign-in"))
    try:
        validate_authorization_response_iss(answer.get("iss"), discovered.metadata)
    except OAuthFlowError:
        raise SignInError(SignInStep.CALLBACK, N_("the answer comes from the issuer {found}, not {expected}"),
                          found=answer.get("iss", "?"), expected=discovered.issuer) from None
    if "error" in answer:
        if answer["error"] == "access_denied":
            raise SignInError(SignInStep.BROWSER, N_("the sign-in was declined"))
        raise SignInError(SignInStep.BROWSER, N_("the service answered {error}: {detail}"), error=answer["error"],
                          detail=answer.get("error_description", "")[:300])
    code = answer.get("code", "")
    if not code:
        raise SignInError(SignInStep.CALLBACK, N_("the answer has no authorization code"))
    return code


async def sign_out(server: str, store: SignIns | None = None) -> SignOutResult:
    """Revoke at the service (when it has a revocation endpoint), then forget locally — always."""
    store = store or SignIns()
    current = await asyncio.to_thread(store.current, server)
    if current is None:
        return SignOutResult(revoked=False)
    result = SignOutResult(revoked=False)
    if current.revocation_endpoint and current.tokens is not None:
        try:
            async with new_client() as http:
                await exchange.revoke(http, current.revocation_endpoint, current.client, current.tokens)
            result = SignOutResult(revoked=True)
        except SignInError as exc:
            result = SignOutResult(revoked=False, problem=exc.text)
    await asyncio.to_thread(store.delete, server, current.issuer)
    return result
