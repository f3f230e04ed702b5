"""A streamable HTTP MCP server (the SDK's ``MCPServer``) that needs a bearer token.

Its protected-resource metadata (RFC 9728) names one authorization server, which a test may
change (a server moving to another sign-in service). Tokens are checked by that server's own
means: the SDK provider's ``load_access_token``, or RFC 7662 introspection at Authlib. A token
must be for this resource (RFC 8707) and hold ``required_scopes`` (else 403 insufficient_scope).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcp.server import MCPServer
from starlette.types import Receive, Scope, Send

#: token -> (scopes, resource) or None when the token is not valid.
Verify = Callable[[str], Awaitable[tuple[list[str], str] | None]]


@dataclass
class Guard:
    issuer: str = ""
    verify: Verify | None = None
    resource: str = ""
    required_scopes: list[str] = field(default_factory=lambda: ["read"])
    seen_tokens: list[str] = field(default_factory=list)
    rejected: int = 0


def make_resource_app(guard: Guard) -> Callable[[str], Any]:
    server = MCPServer("guarded", instructions="needs a sign-in")

    @server.tool()
    def whoami() -> str:
        """Says hello to the signed-in person."""
        return "hello alice"

    def build(url: str) -> Any:
        guard.resource = f"{url}/mcp"
        inner = server.streamable_http_app()

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await inner(scope, receive, send)
                return
            path = scope["path"]
            if path.startswith("/.well-known/oauth-protected-resource"):
                await _json(send, 200, {"resource": guard.resource, "authorization_servers": [guard.issuer],
                                        "scopes_supported": ["read", "write"]})
                return
            metadata_url = f"{url}/.well-known/oauth-protected-resource/mcp"
            headers = dict(scope["headers"])
            auth = headers.get(b"authorization", b"").decode()
            token = auth[7:] if auth.lower().startswith("bearer ") else ""
            checked = await guard.verify(token) if token and guard.verify else None
            if token:
                guard.seen_tokens.append(token)
            if checked is None or checked[1] != guard.resource:
                guard.rejected += 1
                challenge = f'Bearer error="invalid_token", resource_metadata="{metadata_url}"' if token else \
                    f'Bearer resource_metadata="{metadata_url}", scope="read"'
                await _json(send, 401, {"error": "invalid_token"}, challenge)
                return
            missing = [s for s in guard.required_scopes if s not in checked[0]]
            if missing:
                wanted = " ".join(guard.required_scopes)
                await _json(send, 403, {"error": "insufficient_scope"},
                            f'Bearer error="insufficient_scope", scope="{wanted}", resource_metadata="{metadata_url}"')
                return
            await inner(scope, receive, send)

        app.router = inner.router  # type: ignore[attr-defined]  # uvicorn's lifespan goes to the inner app
        return _Lifespan(app, inner)

    return build


class _Lifespan:
    """Requests through the guard; the lifespan (the SDK's session manager) to the inner app."""

    def __init__(self, app: Any, inner: Any) -> None:
        self._app, self._inner = app, inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._inner(scope, receive, send)
        else:
            await self._app(scope, receive, send)


async def _json(send: Send, status: int, body: dict[str, Any], challenge: str | None = None) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if challenge:
        headers.append((b"www-authenticate", challenge.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
