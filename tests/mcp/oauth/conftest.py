"""Real authorization servers on loopback for the sign-in tests: the MCP SDK's own (``mcp.server.auth``)
and Authlib's (an independent implementation from PyPI), each in front of a guarded MCP server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.mcp.oauth import loopback_http_allowed
from tests.mcp.oauth.authlib_server import AuthlibServer
from tests.mcp.oauth.resource_server import Guard, make_resource_app
from tests.mcp.oauth.sdk_server import SdkProvider, sdk_auth_app
from tests.mcp.oauth.serving import Served


@pytest.fixture(autouse=True)
def _loopback_http() -> Iterator[None]:
    # The one place plain http is accepted for OAuth documents: these servers on 127.0.0.1.
    with loopback_http_allowed():
        yield


@dataclass
class World:
    guard: Guard
    mcp_url: str
    sdk: SdkProvider
    sdk_issuer: str
    authlib: AuthlibServer

    def config(self, name: str = "remote", **oauth: Any) -> ServerConfig:
        raw: dict[str, Any] = {"type": "http", "url": self.mcp_url}
        if oauth:
            raw["oauth"] = oauth
        return parse_server(name, raw)

    def use_sdk(self) -> None:
        """The MCP server trusts the SDK's authorization server."""
        provider = self.sdk

        async def verify(token: str) -> tuple[list[str], str] | None:
            found = await provider.load_access_token(token)
            return (found.scopes, found.resource or "") if found is not None else None

        self.guard.issuer, self.guard.verify = self.sdk_issuer, verify

    def use_authlib(self) -> None:
        """The MCP server trusts Authlib's, asking it about each token (RFC 7662)."""
        issuer = self.authlib.issuer

        async def verify(token: str) -> tuple[list[str], str] | None:
            async with httpx.AsyncClient(timeout=5) as http:
                answer = (await http.post(f"{issuer}/introspect", data={"token": token})).json()
            if not answer.get("active"):
                return None
            return str(answer.get("scope", "")).split(), str(answer.get("aud", ""))

        self.guard.issuer, self.guard.verify = issuer, verify


@pytest.fixture
def world() -> Iterator[World]:
    provider = SdkProvider()
    guard = Guard()
    with Served(lambda url: sdk_auth_app(provider, url)) as sdk, AuthlibServer() as authlib, \
            Served(make_resource_app(guard)) as mcp:
        made = World(guard=guard, mcp_url=f"{mcp.url}/mcp", sdk=provider, sdk_issuer=sdk.url, authlib=authlib)
        made.use_sdk()
        yield made
