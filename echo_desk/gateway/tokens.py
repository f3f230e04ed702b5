"""Bearer tokens of the HTTP gateway: one per client, in the keyring, shown once.

A token is 32 random bytes (URL-safe base64), kept in the secret store (the OS keyring in the
app and the CLI) under ``gateway.<client>.token``; the settings never hold it. Checking a token
compares it in constant time with each known client's; the token names its client, so a
connection cannot claim to be someone else.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable

from echo_desk.tools.secrets import SecretStore, secret_store


def token_key(client: str) -> str:
    return f"gateway.{client}.token"


def new_token(client: str, store: SecretStore | None = None) -> str:
    """Make (or replace) ``client``'s token and return it: the only time it is shown."""
    token = secrets.token_urlsafe(32)
    (store or secret_store()).set(token_key(client), token)
    return token


def has_token(client: str, store: SecretStore | None = None) -> bool:
    return bool((store or secret_store()).get(token_key(client)))


def revoke_token(client: str, store: SecretStore | None = None) -> None:
    (store or secret_store()).delete(token_key(client))


def client_for(token: str, clients: Iterable[str], store: SecretStore | None = None) -> str | None:
    """The client whose token ``token`` is, or ``None``."""
    if not token:
        return None
    found = None
    given = token.encode("utf-8")
    store = store or secret_store()
    for client in clients:
        known = store.get(token_key(client))
        # Every client is compared (no early exit): the time taken says nothing about which.
        if known and hmac.compare_digest(known.encode("utf-8"), given):
            found = client
    return found
