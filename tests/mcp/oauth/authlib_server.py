"""An independent OAuth 2.1 authorization server for the tests: Authlib (PyPI) on Flask.

Assembled here from Authlib's own grant, PKCE (RFC 7636), dynamic registration (RFC 7591),
revocation (RFC 7009), introspection (RFC 7662) and issuer parameter (RFC 9207) classes; this
file only stores clients, codes and tokens in memory and adds what Authlib leaves to the
application: resource indicators (RFC 8707, the token's ``aud``), client ID metadata documents
(a URL as client id, fetched when first seen) and loopback redirects on any port (RFC 8252).
Runs on 127.0.0.1 in a thread (werkzeug). ``hostile`` switches make it misbehave on purpose.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import jwt
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.models import AuthorizationCodeMixin, ClientMixin, TokenMixin
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7591 import ClientRegistrationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from authlib.oauth2.rfc9207 import IssuerParameter
from flask import Flask, jsonify, redirect, request
from werkzeug.serving import make_server

SIGNING_KEY = "test-signing-key-of-the-authlib-server-0123456789"


@dataclass
class Client(ClientMixin):  # type: ignore[misc]
    client_id: str
    redirect_uris: list[str]
    client_secret: str = ""
    auth_method: str = "none"
    scope: str = ""

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uris[0]

    def get_allowed_scope(self, scope: str) -> str:
        return scope or ""

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        if redirect_uri in self.redirect_uris:
            return True
        # RFC 8252 §7.3: a loopback IP redirect may use any port.
        asked = urlsplit(redirect_uri)
        for uri in self.redirect_uris:
            known = urlsplit(uri)
            if asked.hostname == known.hostname == "127.0.0.1" and asked.path == known.path and asked.scheme == "http":
                return True
        return False

    def check_client_secret(self, client_secret: str) -> bool:
        return bool(self.client_secret) and secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == self.auth_method

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


@dataclass
class Code(AuthorizationCodeMixin):  # type: ignore[misc]
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    resource: str
    code_challenge: str
    code_challenge_method: str
    expires_at: float

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> None:
        return None

    def get_auth_time(self) -> None:
        return None


@dataclass
class Token(TokenMixin):  # type: ignore[misc]
    access_token: str
    refresh_token: str | None
    client_id: str
    scope: str
    resource: str
    issued_at: float
    expires_in: int
    revoked: bool = False
    clients: dict[str, Client] = field(default_factory=dict, repr=False)

    def check_client(self, client: Client) -> bool:
        return client.client_id == self.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return self.expires_in

    def is_expired(self) -> bool:
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self) -> bool:
        return self.revoked

    def get_user(self) -> str:
        return "alice"

    def get_client(self) -> Client:
        return self.clients[self.client_id]


@dataclass
class AuthlibState:
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, Code] = field(default_factory=dict)
    tokens: list[Token] = field(default_factory=list)
    #: Every token request's form (what the client sent: resource, client id, grant).
    token_requests: list[dict[str, str]] = field(default_factory=list)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    registrations: list[dict[str, Any]] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    fetched_metadata_documents: list[str] = field(default_factory=list)
    expires_in: int = 3600
    #: Misbehaviour: "wrong_audience" (tokens for another resource), "wrong_iss" (another issuer in the answer).
    hostile: set[str] = field(default_factory=set)

    def find(self, value: str) -> Token | None:
        for token in self.tokens:
            if value in (token.access_token, token.refresh_token):
                return token
        return None


class _Iss(IssuerParameter):  # type: ignore[misc]
    def __init__(self, server: AuthlibServer) -> None:
        self._server = server

    def get_issuer(self) -> str:
        if "wrong_iss" in self._server.state.hostile:
            return "https://impostor.example"
        return self._server.issuer


class AuthlibServer:
    """``with AuthlibServer() as auth: auth.issuer …`` (a thread serving Flask on 127.0.0.1)."""

    def __init__(self) -> None:
        self.state = AuthlibState()
        self.app = Flask("authlib-test-as")
        self._http = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.issuer = f"http://127.0.0.1:{self._http.server_port}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._build()

    def __enter__(self) -> AuthlibServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._thread.join(5)

    # -- the server ----------------------------------------------------------------------------

    def _query_client(self, client_id: str) -> Client | None:
        known = self.state.clients.get(client_id)
        if known is not None or not client_id.startswith(("http://", "https://")):
            return known
        # A client ID metadata document: the URL is the client id; fetch and check it.
        response = httpx.get(client_id, timeout=5)
        self.state.fetched_metadata_documents.append(client_id)
        if response.status_code != 200:
            return None
        doc = response.json()
        if doc.get("client_id") != client_id:
            return None
        client = Client(client_id=client_id, redirect_uris=list(doc.get("redirect_uris") or []))
        self.state.clients[client_id] = client
        return client

    def _save_token(self, token: dict[str, Any], req: Any) -> None:
        stored = Token(access_token=token["access_token"], refresh_token=token.get("refresh_token"),
                       client_id=req.client.client_id, scope=token.get("scope", ""),
                       resource=str(jwt.decode(token["access_token"], options={"verify_signature": False})["aud"]),
                       issued_at=time.time(),
                       expires_in=token.get("expires_in", self.state.expires_in), clients=self.state.clients)
        self.state.tokens.append(stored)

    def _generate_token(self, grant_type: str, client: Client, user: Any = None, scope: str | None = None,
                        expires_in: int | None = None, include_refresh_token: bool = True) -> dict[str, Any]:
        resource = request.form.get("resource", "")
        if grant_type == "refresh_token":
            old = self.state.find(request.form.get("refresh_token", ""))
            resource = resource or (old.resource if old else "")
        audience = "https://other.example/mcp" if "wrong_audience" in self.state.hostile else resource
        now = int(time.time())
        access = jwt.encode({"iss": self.issuer, "sub": "alice", "aud": audience, "client_id": client.client_id,
                             "scope": scope or "", "iat": now, "exp": now + self.state.expires_in,
                             "jti": secrets.token_hex(8)}, SIGNING_KEY, algorithm="HS256")
        token = {"token_type": "Bearer", "access_token": access, "expires_in": self.state.expires_in,
                 "scope": scope or ""}
        if include_refresh_token:
            token["refresh_token"] = secrets.token_urlsafe(24)
        return token

    def _build(self) -> None:
        server = AuthorizationServer(self.app, query_client=self._query_client, save_token=self._save_token)
        server.generate_token = self._generate_token
        CodeGrant, RefreshGrant = _grant_classes(self)
        Registration, Revocation, Introspection = _endpoint_classes(self)
        server.register_grant(CodeGrant, [CodeChallenge(required=True)])
        server.register_grant(RefreshGrant)
        server.register_endpoint(Registration)
        server.register_endpoint(Revocation)
        server.register_endpoint(Introspection)
        server.register_extension(_Iss(self))
        self._routes(server, Registration.ENDPOINT_NAME, Revocation.ENDPOINT_NAME, Introspection.ENDPOINT_NAME)

    def _routes(self, server: AuthorizationServer, registration: str, revocation: str, introspection: str) -> None:
        app, owner = self.app, self

        @app.get("/.well-known/oauth-authorization-server")
        def metadata() -> Any:
            return jsonify(owner.metadata())

        @app.route("/authorize", methods=["GET", "POST"])
        def authorize() -> Any:
            if request.method == "GET":
                owner.state.authorize_requests.append(dict(request.args))
                server.get_consent_grant(end_user="alice")  # validates the request
                # The consent page: a form the person (the test's browser) submits.
                fields = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in request.args.items())
                return (f'<form method="post" action="/authorize">{fields}'
                        '<button name="decision" value="approve">Allow</button></form>')
            granted = "alice" if request.form.get("decision") == "approve" else None
            grant = server.get_consent_grant(end_user=granted)
            return server.create_authorization_response(grant_user=granted, grant=grant)

        @app.post("/token")
        def token() -> Any:
            owner.state.token_requests.append(dict(request.form))
            return server.create_token_response()

        @app.post("/register")
        def register() -> Any:
            return server.create_endpoint_response(registration)

        @app.post("/revoke")
        def revoke() -> Any:
            return server.create_endpoint_response(revocation)

        @app.post("/introspect")
        def introspect() -> Any:
            return server.create_endpoint_response(introspection)

        @app.get("/bounce")
        def bounce() -> Any:
            return redirect("http://169.254.169.254/latest/meta-data", code=302)

    def metadata(self) -> dict[str, Any]:
        base = self.issuer
        return {
            "issuer": base, "authorization_endpoint": f"{base}/authorize", "token_endpoint": f"{base}/token",
            "registration_endpoint": f"{base}/register", "revocation_endpoint": f"{base}/revoke",
            "introspection_endpoint": f"{base}/introspect", "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "scopes_supported": ["read", "write"], "client_id_metadata_document_supported": True,
            "authorization_response_iss_parameter_supported": True,
        }

    def add_client(self, client_id: str, secret: str = "", redirect_uri: str = "http://127.0.0.1/callback") -> None:
        """A client registered by hand (what a person pastes into the server's settings)."""
        self.state.clients[client_id] = Client(client_id=client_id, client_secret=secret,
                                               redirect_uris=[redirect_uri],
                                               auth_method="client_secret_basic" if secret else "none")

    def introspect(self, token: str) -> dict[str, Any]:
        """RFC 7662 over HTTP, as a resource server asks."""
        response = httpx.post(f"{self.issuer}/introspect", data={"token": token}, timeout=5)
        return dict(response.json())


def _grant_classes(owner: AuthlibServer) -> tuple[type, type]:
    class CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
        TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

        def save_authorization_code(self, code: str, req: Any) -> None:
            owner.state.codes[code] = Code(
                code=code, client_id=req.client.client_id, redirect_uri=req.payload.redirect_uri,
                scope=req.payload.scope or "", resource=req.payload.data.get("resource", ""),
                code_challenge=req.payload.data.get("code_challenge"),
                code_challenge_method=req.payload.data.get("code_challenge_method"),
                expires_at=time.time() + 300)

        def query_authorization_code(self, code: str, client: Client) -> Code | None:
            found = owner.state.codes.get(code)
            if found and found.client_id == client.client_id and found.expires_at > time.time():
                return found
            return None

        def delete_authorization_code(self, code: Code) -> None:
            owner.state.codes.pop(code.code, None)

        def authenticate_user(self, code: Code) -> str:
            asked = request.form.get("resource", "")
            if asked and asked != code.resource:
                raise ValueError("resource differs from the authorization request")
            return "alice"

    class RefreshGrant(grants.RefreshTokenGrant):  # type: ignore[misc]
        TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
        INCLUDE_NEW_REFRESH_TOKEN = True

        def authenticate_refresh_token(self, refresh_token: str) -> Token | None:
            found = owner.state.find(refresh_token)
            if found is None or found.revoked or found.refresh_token != refresh_token:
                return None
            return found

        def authenticate_user(self, credential: Token) -> str:
            return "alice"

        def revoke_old_credential(self, credential: Token) -> None:
            credential.revoked = True

    return CodeGrant, RefreshGrant


def _endpoint_classes(owner: AuthlibServer) -> tuple[type, type, type]:
    class Registration(ClientRegistrationEndpoint):  # type: ignore[misc]
        def authenticate_token(self, req: Any) -> bool:
            return True  # open registration, as MCP services offer it

        def get_server_metadata(self) -> dict[str, Any]:
            return owner.metadata()

        def save_client(self, client_info: dict[str, Any], client_metadata: dict[str, Any], req: Any) -> Client:
            owner.state.registrations.append({**client_info, **client_metadata})
            client = Client(client_id=client_info["client_id"],
                            client_secret=client_info.get("client_secret") or "",
                            redirect_uris=list(client_metadata.get("redirect_uris") or []),
                            auth_method=client_metadata.get("token_endpoint_auth_method", "none"))
            owner.state.clients[client.client_id] = client
            return client

    class Revocation(RevocationEndpoint):  # type: ignore[misc]
        CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

        def query_token(self, token_string: str, token_type_hint: str | None) -> Token | None:
            return owner.state.find(token_string)

        def revoke_token(self, token: Token, req: Any) -> None:
            token.revoked = True
            owner.state.revoked.append(token.access_token)

    class Introspection(IntrospectionEndpoint):  # type: ignore[misc]
        CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

        def query_token(self, token_string: str, token_type_hint: str | None) -> Token | None:
            return owner.state.find(token_string)

        def check_permission(self, token: Token, client: Any, req: Any) -> bool:
            return True

        def introspect_token(self, token: Token) -> dict[str, Any]:
            return {"active": True, "client_id": token.client_id, "scope": token.scope, "sub": "alice",
                    "aud": token.resource, "iss": owner.issuer,
                    "exp": int(token.issued_at + token.expires_in)}

        def authenticate_endpoint_client(self, req: Any) -> Any:
            return object()  # the resource server asks without client credentials in these tests

    return Registration, Revocation, Introspection
