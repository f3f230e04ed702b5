"""The token endpoint: a code for tokens, a refresh token for new ones, and revocation.

Client authentication follows the client's method (none, ``client_secret_basic``,
``client_secret_post``). A token the service issued for another resource (a JWT whose ``aud``
does not name the server) is refused before it is kept or sent anywhere.
"""

from __future__ import annotations

import base64
import binascii
import time
from typing import Any
from urllib.parse import quote

import httpx2
from mcp.shared.auth import OAuthToken
from mcp.shared.auth_utils import check_resource_allowed
from pydantic import ValidationError

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_
from echo_desk.mcp.oauth.errors import SignInError, SignInStep
from echo_desk.mcp.oauth.http import send
from echo_desk.mcp.oauth.tokens import Client, Tokens


class RefreshRefused(SignInError):
    """The service no longer honours the refresh token (revoked, expired): sign in again."""


def client_auth(client: Client, data: dict[str, str]) -> dict[str, str]:
    """Headers for the client's authentication method; ``data`` is updated in place."""
    data["client_id"] = client.client_id
    if client.client_secret and client.auth_method == "client_secret_basic":
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
    if client.client_secret and client.auth_method == "client_secret_post":
        data["client_secret"] = client.client_secret
    return {}


def jwt_audience(token: str) -> list[str] | None:
    """The ``aud`` of a JWT access token (unverified: only to refuse a token for someone else);
    ``None`` for an opaque token or one without an audience."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload: Any = read_json(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        return None
    aud = payload.get("aud") if isinstance(payload, dict) else None
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list) and all(isinstance(a, str) for a in aud):
        return aud
    return None


def _check_audience(token: str, resource: str, step: SignInStep) -> None:
    audience = jwt_audience(token)
    if audience is None:
        return
    if not any(a == resource or check_resource_allowed(requested_resource=resource, configured_resource=a)
               for a in audience):
        raise SignInError(step, N_("the service issued an access token for another resource ({audience}), not {resource}"),
                          audience=", ".join(audience), resource=resource)


async def _token_call(
    http: httpx2.AsyncClient, endpoint: str, client: Client, data: dict[str, str], resource: str, step: SignInStep,
    previous: Tokens | None = None,
) -> Tokens:
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
               **client_auth(client, data)}
    status, value, _ = await send(http, step, "POST", endpoint, data=data, headers=headers)
    if status != 200:
        error = str((value or {}).get("error") or "")
        detail = str((value or {}).get("error_description") or "")[:300]
        if step is SignInStep.REFRESH and error in ("invalid_grant", "invalid_client", "unauthorized_client"):
            raise RefreshRefused(step, N_("the service no longer accepts the sign-in ({error}); sign in again"),
                                 error=error)
        raise SignInError(step, N_("the service refused (HTTP {status}) {error} {detail}"), status=status,
                          error=error, detail=detail)
    if value is None:
        raise SignInError(step, N_("the access token answer is not a JSON object"))
    try:
        token = OAuthToken.model_validate(value)
    except ValidationError as exc:
        raise SignInError(step, N_("the access token answer is not valid ({count} problems)"), count=exc.error_count()) from None
    _check_audience(token.access_token, resource, step)
    expires_at = time.time() + int(token.expires_in) if token.expires_in is not None else None
    return Tokens(
        access_token=token.access_token,
        # RFC 6749 §6: a refresh answer may leave out the refresh token (not rotated) and the scope.
        refresh_token=token.refresh_token or (previous.refresh_token if previous else None),
        expires_at=expires_at,
        scope=token.scope or (previous.scope if previous else data.get("scope")),
    )


async def exchange_code(
    http: httpx2.AsyncClient, endpoint: str, client: Client, *, code: str, verifier: str, redirect_uri: str,
    resource: str, scope: str | None,
) -> Tokens:
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "code_verifier": verifier, "resource": resource}
    tokens = await _token_call(http, endpoint, client, data, resource, SignInStep.TOKEN)
    if tokens.scope is None and scope:
        return Tokens(access_token=tokens.access_token, refresh_token=tokens.refresh_token,
                      expires_at=tokens.expires_at, scope=scope)
    return tokens


async def refresh(http: httpx2.AsyncClient, endpoint: str, client: Client, tokens: Tokens, resource: str) -> Tokens:
    if not tokens.refresh_token:
        raise RefreshRefused(SignInStep.REFRESH, N_("the access token ended and the service gave no way to renew it"))
    data = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token, "resource": resource}
    return await _token_call(http, endpoint, client, data, resource, SignInStep.REFRESH, previous=tokens)


async def revoke(http: httpx2.AsyncClient, endpoint: str, client: Client, tokens: Tokens) -> None:
    """RFC 7009: the refresh token (which ends the grant at most services), then the access token."""
    for token, hint in ((tokens.refresh_token, "refresh_token"), (tokens.access_token, "access_token")):
        if not token:
            continue
        data = {"token": token, "token_type_hint": hint}
        headers = {"Content-Type": "application/x-www-form-urlencoded", **client_auth(client, data)}
        status, value, _ = await send(http, SignInStep.REVOKE, "POST", endpoint, data=data, headers=headers)
        if status != 200:
            raise SignInError(SignInStep.REVOKE, N_("the service refused (HTTP {status}) {error}"), status=status,
                              error=str((value or {}).get("error") or ""))
