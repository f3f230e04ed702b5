"""The access token on every request of an MCP connection, renewed before it ends.

An ``httpx2.Auth`` for the SDK's HTTP transports. It never opens a browser: a 401 it cannot
cure by renewing (once), or a 403 ``insufficient_scope``, is noted in ``needed`` and the
request fails; the manager then shows the server as needing sign-in.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import httpx2

from echo_desk.i18n import N_
from echo_desk.mcp.oauth import exchange
from echo_desk.mcp.oauth.discovery import Challenge, challenge_of
from echo_desk.mcp.oauth.errors import SignInError, SignInNeeded
from echo_desk.mcp.oauth.http import new_client
from echo_desk.mcp.oauth.tokens import SignIn, SignIns


class OAuthBearer(httpx2.Auth):
    requires_request_body = True  # a request refused with an old token is sent again with the new one

    def __init__(self, server: str, store: SignIns | None = None) -> None:
        self.server = server
        self._store = store or SignIns()
        self._sign_in: SignIn | None = None
        self._loaded = False
        self._lock: asyncio.Lock | None = None
        #: Why the person must sign in (again), once a request found out; ``None`` while all is well.
        self.needed: SignInNeeded | None = None
        #: The server's last 401/403 challenge (the sign-in starts from it).
        self.challenge: Challenge | None = None

    @property
    def signed_in(self) -> SignIn | None:
        return self._sign_in if self._sign_in is not None and self._sign_in.tokens is not None else None

    async def _current(self) -> SignIn | None:
        if not self._loaded:
            self._sign_in = await asyncio.to_thread(self._store.current, self.server)
            self._loaded = True
        return self._sign_in

    async def _renew(self, sign_in: SignIn) -> SignIn | None:
        """New tokens by the refresh token; ``None`` (and ``needed`` set) when refused."""
        assert sign_in.tokens is not None
        try:
            async with new_client() as http:
                tokens = await exchange.refresh(http, sign_in.token_endpoint, sign_in.client, sign_in.tokens,
                                                sign_in.resource)
        except exchange.RefreshRefused as exc:
            await asyncio.to_thread(self._store.forget_tokens, sign_in)
            self._sign_in = sign_in.with_tokens(None)
            self.needed = SignInNeeded(exc.reason, params=exc.params)
            return None
        except SignInError as exc:
            self.needed = SignInNeeded(N_("renewing the sign-in failed: {error}"), params={"error": exc.text})
            return None
        renewed = sign_in.with_tokens(tokens)
        await asyncio.to_thread(self._store.save, renewed, make_current=False)
        self._sign_in = renewed
        return renewed

    async def _usable(self, *, force_renew: bool = False) -> SignIn | None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            sign_in = await self._current()
            if sign_in is None or sign_in.tokens is None:
                return None
            if force_renew or sign_in.tokens.expires_soon():
                return await self._renew(sign_in)
            return sign_in

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        sign_in = await self._usable()
        sent_token = sign_in.tokens.access_token if sign_in is not None and sign_in.tokens else None
        if sent_token:
            request.headers["Authorization"] = f"Bearer {sent_token}"
        response = yield request
        if response.status_code == 401 and sent_token is not None:
            # Ended early or revoked at the service: renew once, then send the request again.
            current = self._sign_in
            renewed = None
            if current is not None and current.tokens is not None and current.tokens.access_token == sent_token:
                renewed = await self._usable(force_renew=True)
            elif current is not None and current.tokens is not None:
                renewed = current  # another request renewed it meanwhile
            if renewed is not None and renewed.tokens is not None:
                request.headers["Authorization"] = f"Bearer {renewed.tokens.access_token}"
                response = yield request
        if response.status_code == 401:
            self.challenge = challenge_of(response.headers)
            if self.needed is None:
                self.needed = SignInNeeded(N_("the server asks you to sign in") if sent_token is None
                                           else N_("the server no longer accepts the sign-in"),
                                           scope=self.challenge.scope)
        elif response.status_code == 403:
            challenge = challenge_of(response.headers)
            if challenge.error == "insufficient_scope":
                self.challenge = challenge
                self.needed = SignInNeeded(N_("the server asks for more permissions: {wanted}"),
                                           scope=challenge.scope, params={"wanted": challenge.scope or "?"})
