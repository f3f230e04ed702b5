"""Sign-ins kept in the secret store (the OS keyring), keyed by server AND issuer.

``mcp.oauth.<server>.<issuer digest>`` holds one JSON record: the issuer, the resource, the
client (its id, and its secret when the service gave one), the endpoints used to renew and
revoke, and the tokens. ``mcp.oauth.<server>.current`` names the issuer in use. A server that
moves to another authorization server gets a new record: the old issuer's tokens and client
are never sent to the new one.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_
from echo_desk.mcp.oauth.errors import SignInError, SignInStep
from echo_desk.tools.secrets import SecretStore, secret_store

#: Renew this long before the token's end, so a call never starts with a token about to lapse.
REFRESH_MARGIN_SECONDS = 60.0


@dataclass(frozen=True, kw_only=True)
class Client:
    """How Echo Desk is known to one authorization server."""

    client_id: str
    client_secret: str | None = None
    #: ``none`` | ``client_secret_basic`` | ``client_secret_post``
    auth_method: str = "none"
    #: ``pasted`` (from the server's settings) | ``metadata_document`` (a URL client id) | ``dynamic`` (RFC 7591)
    registered_by: str = "dynamic"
    redirect_uris: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Tokens:
    access_token: str
    refresh_token: str | None = None
    #: Unix time the access token ends, if the service said.
    expires_at: float | None = None
    scope: str | None = None

    def expires_soon(self, now: float | None = None) -> bool:
        if self.expires_at is None:
            return False
        return (now if now is not None else time.time()) >= self.expires_at - REFRESH_MARGIN_SECONDS


@dataclass(frozen=True, kw_only=True)
class SignIn:
    """One server's sign-in with one issuer."""

    server: str
    issuer: str
    resource: str
    token_endpoint: str
    revocation_endpoint: str | None = None
    client: Client
    tokens: Tokens | None = None
    signed_in_at: float = field(default_factory=time.time)

    def with_tokens(self, tokens: Tokens | None) -> SignIn:
        return replace(self, tokens=tokens)

    def to_json(self) -> str:
        data = asdict(self)
        data["client"]["redirect_uris"] = list(self.client.redirect_uris)
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SignIn:
        data: dict[str, Any] = read_json(text)
        client = data.pop("client")
        client["redirect_uris"] = tuple(client.get("redirect_uris") or ())
        tokens = data.pop("tokens")
        return cls(client=Client(**client), tokens=Tokens(**tokens) if tokens else None, **data)


def issuer_key(server: str, issuer: str) -> str:
    digest = hashlib.sha256(issuer.encode("utf-8")).hexdigest()[:16]
    return f"mcp.oauth.{server}.{digest}"


def current_key(server: str) -> str:
    return f"mcp.oauth.{server}.current"


class SignIns:
    """Read and write sign-ins; blocking (the keyring may be slow): call off the UI thread."""

    def __init__(self, store: SecretStore | None = None) -> None:
        self._store = store

    @property
    def store(self) -> SecretStore:
        return self._store or secret_store()

    def current(self, server: str) -> SignIn | None:
        """The sign-in in use for ``server`` (``None`` when signed out or unreadable)."""
        issuer = self._get(current_key(server))
        return self.for_issuer(server, issuer) if issuer else None

    def for_issuer(self, server: str, issuer: str) -> SignIn | None:
        text = self._get(issuer_key(server, issuer))
        if not text:
            return None
        try:
            found = SignIn.from_json(text)
        except (ValueError, TypeError, KeyError):
            return None  # a record we cannot read is no sign-in; signing in again replaces it
        return found if found.issuer == issuer and found.server == server else None

    def save(self, sign_in: SignIn, *, make_current: bool = True) -> None:
        try:
            self.store.set(issuer_key(sign_in.server, sign_in.issuer), sign_in.to_json())
            if make_current:
                self.store.set(current_key(sign_in.server), sign_in.issuer)
        except Exception as exc:  # a locked keyring: the step says so
            # The backend's English ("Keyring is locked …") stays the cause, as mcp.json's keyring errors do.
            raise SignInError(SignInStep.STORAGE, N_("the keyring could not save it")) from exc

    def forget_tokens(self, sign_in: SignIn) -> None:
        """Keep the client registration, drop the tokens (a revoked or refused refresh)."""
        self.save(sign_in.with_tokens(None), make_current=False)

    def delete(self, server: str, issuer: str) -> None:
        try:
            self.store.delete(issuer_key(server, issuer))
            if self._get(current_key(server)) == issuer:
                self.store.delete(current_key(server))
        except Exception as exc:  # said as the storage step's error
            raise SignInError(SignInStep.STORAGE,
                              N_("the keyring could not delete it; the sign-in may still be kept there")) from exc

    def _get(self, key: str) -> str | None:
        try:
            return self.store.get(key)
        except Exception:  # noqa: BLE001 — a locked keyring reads as "not signed in"
            return None
