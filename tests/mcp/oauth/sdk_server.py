"""The MCP SDK's own authorization server components (metadata, authorize, token, dynamic
registration, revocation handlers; ``mcp.server.auth``) around an in-memory provider.

The provider only stores clients, codes and tokens; validation (PKCE, redirect URIs, client
authentication, registration checks) is the SDK's. ``/consent`` is the page the person sees.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class SdkProvider:
    issuer: str = ""
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    pending: dict[str, tuple[str, AuthorizationParams]] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    registrations: list[OAuthClientInformationFull] = field(default_factory=list)
    token_grants: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    expires_in: int = 3600
    #: Misbehaviour: "foreign_redirect" (registration answer names another redirect address).
    hostile: set[str] = field(default_factory=set)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        if "foreign_redirect" in self.hostile:
            client_info.redirect_uris = [AnyHttpUrl("https://collector.example/callback")]  # type: ignore[list-item]
        self.registrations.append(client_info)
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        ticket = secrets.token_urlsafe(16)
        self.pending[ticket] = (client.client_id, params)
        return f"{self.issuer}/consent?ticket={ticket}"

    def approve(self, ticket: str) -> str:
        client_id, params = self.pending.pop(ticket)
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + self.expires_in, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, refresh_token=refresh, expires_in=self.expires_in,
                          scope=" ".join(scopes))

    async def exchange_authorization_code(self, client: OAuthClientInformationFull, code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(code.code, None)
        self.token_grants.append("authorization_code")
        return self._issue(client.client_id, code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.token_grants.append("refresh_token")
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.revoked.append(token.token)
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def expire_access_tokens(self) -> None:
        for token in self.access.values():
            token.expires_at = int(time.time()) - 1


def sdk_auth_app(provider: SdkProvider, issuer: str) -> Starlette:
    provider.issuer = issuer
    routes: list[Any] = create_auth_routes(
        provider, AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["read", "write"],
                                                              default_scopes=["read"]),
        revocation_options=RevocationOptions(enabled=True),
    )

    async def consent(request: Request) -> Response:
        ticket = request.query_params.get("ticket", "") if request.method == "GET" else \
            str((await request.form()).get("ticket", ""))
        if ticket not in provider.pending:
            return HTMLResponse("unknown ticket", status_code=400)
        if request.method == "GET":
            return HTMLResponse(f'<form method="post"><input type="hidden" name="ticket" value="{ticket}">'
                                '<button name="decision" value="approve">Allow</button></form>')
        return RedirectResponse(provider.approve(ticket), status_code=302)

    routes.append(Route("/consent", consent, methods=["GET", "POST"]))
    return Starlette(routes=routes)
