"""Discovery: from the MCP server's 401 to its authorization server's metadata.

RFC 9728 protected-resource metadata (from ``WWW-Authenticate: … resource_metadata=`` or the
well-known URLs), then RFC 8414 authorization-server metadata or OpenID Connect discovery.
The URL lists, the issuer check and the resource match are the MCP SDK's; the fetching
(bounded, HTTPS only, no redirects) and the errors are ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    extract_field_from_www_auth,
    issuers_match,
)
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url
from pydantic import ValidationError

from echo_desk.i18n import N_
from echo_desk.mcp.oauth.errors import SignInError, SignInStep, cannot_reach
from echo_desk.mcp.oauth.http import require_origin, send

_PROBE = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


@dataclass(frozen=True)
class Challenge:
    """What the server's 401 (or 403 ``insufficient_scope``) said."""

    resource_metadata: str | None
    scope: str | None
    error: str | None


@dataclass(frozen=True)
class Discovered:
    """Where and how to sign in for one MCP server."""

    server_url: str
    #: The RFC 8707 resource indicator tokens are requested for.
    resource: str
    issuer: str
    metadata: OAuthMetadata
    protected: ProtectedResourceMetadata | None
    challenge: Challenge


def challenge_of(headers: httpx2.Headers) -> Challenge:
    response = httpx2.Response(401, headers=headers)
    return Challenge(
        resource_metadata=extract_field_from_www_auth(response, "resource_metadata"),
        scope=extract_field_from_www_auth(response, "scope"),
        error=extract_field_from_www_auth(response, "error"),
    )


async def probe(client: httpx2.AsyncClient, server_url: str) -> Challenge:
    """Ask the server, without a token, what it wants (a JSON-RPC ``ping`` like any request)."""
    try:
        response = await client.post(server_url, json=_PROBE,
                                     headers={"Accept": "application/json, text/event-stream"})
    except httpx2.HTTPError as exc:
        raise cannot_reach(SignInStep.DISCOVERY, server_url, exc) from exc
    await response.aclose()
    if response.status_code not in (401, 403):
        raise SignInError(SignInStep.DISCOVERY, N_("the server did not ask for a sign-in (it answered HTTP {status})"),
                          status=response.status_code)
    return challenge_of(response.headers)


def _parse(model: Any, value: dict[str, Any] | None, step: SignInStep, url: str) -> Any:
    if value is None:
        raise SignInError(step, N_("{url} did not answer with a JSON object"), url=url)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise SignInError(step, N_("{url} is not valid metadata ({count} problems)"), url=url,
                          count=exc.error_count()) from None


async def protected_resource(
    client: httpx2.AsyncClient, server_url: str, challenge: Challenge
) -> ProtectedResourceMetadata | None:
    """RFC 9728 metadata, from the challenge's URL or the well-known ones; ``None`` when the server
    publishes none (a 2025-03-26 server: its own origin is the authorization server)."""
    for url in build_protected_resource_metadata_discovery_urls(challenge.resource_metadata, server_url):
        status, value, _ = await send(client, SignInStep.DISCOVERY, "GET", url)
        if status != 200:
            if status >= 500 or status == 429:
                raise SignInError(SignInStep.DISCOVERY, N_("{url} answered HTTP {status}"), url=url, status=status)
            continue
        prm: ProtectedResourceMetadata = _parse(ProtectedResourceMetadata, value, SignInStep.DISCOVERY, url)
        expected = resource_url_from_server_url(server_url)
        if not check_resource_allowed(requested_resource=expected, configured_resource=str(prm.resource)):
            raise SignInError(SignInStep.DISCOVERY, N_("the server's metadata is for another resource: {resource}"),
                              resource=str(prm.resource))
        return prm
    return None


async def authorization_server(client: httpx2.AsyncClient, issuer: str | None, server_url: str) -> OAuthMetadata:
    """RFC 8414 or OpenID Connect metadata of ``issuer``, its ``issuer`` checked."""
    for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, server_url):
        status, value, _ = await send(client, SignInStep.METADATA, "GET", url)
        if status != 200:
            if status >= 500 or status == 429:
                raise SignInError(SignInStep.METADATA, N_("{url} answered HTTP {status}"), url=url, status=status)
            continue
        metadata: OAuthMetadata = _parse(OAuthMetadata, value, SignInStep.METADATA, url)
        # RFC 8414 §3.3: the issuer it names is the one asked for (a root issuer with and without
        # its trailing slash is the same, as the SDK reads it).
        if issuer is not None and not issuers_match(str(metadata.issuer), issuer):
            raise SignInError(SignInStep.METADATA, N_("the metadata names the issuer {found}, not {expected}"),
                              found=str(metadata.issuer), expected=issuer)
        _check_endpoints(metadata)
        return metadata
    raise SignInError(SignInStep.METADATA, N_("no authorization server metadata found for {issuer}"),
                      issuer=issuer or server_url)


def _check_endpoints(metadata: OAuthMetadata) -> None:
    methods = metadata.code_challenge_methods_supported
    if methods is None or "S256" not in methods:
        # The MCP specification: without advertised S256 support the client must not go on.
        raise SignInError(SignInStep.METADATA, N_("the sign-in service does not support PKCE with S256"))
    for endpoint in (metadata.authorization_endpoint, metadata.token_endpoint, metadata.registration_endpoint,
                     metadata.revocation_endpoint):
        if endpoint is not None:
            require_origin(str(endpoint), SignInStep.METADATA)


async def discover(client: httpx2.AsyncClient, server_url: str, challenge: Challenge | None = None) -> Discovered:
    """Everything needed to sign in to ``server_url``; ``challenge`` when a 401 is at hand."""
    if challenge is None:
        challenge = await probe(client, server_url)
    prm = await protected_resource(client, server_url, challenge)
    issuer = str(prm.authorization_servers[0]) if prm is not None else None
    if issuer is not None:
        require_origin(issuer, SignInStep.DISCOVERY)
    metadata = await authorization_server(client, issuer, server_url)
    resource = str(prm.resource) if prm is not None else resource_url_from_server_url(server_url)
    # Keyed as the resource names it (the metadata may add a root slash to the same issuer).
    return Discovered(server_url=server_url, resource=resource, issuer=issuer or str(metadata.issuer), metadata=metadata,
                      protected=prm, challenge=challenge)
