"""Bearer tokens of the HTTP gateway: one per client, in the keyring, shown once.

A token is 32 random bytes (URL-safe base64), kept in the OS keyring (where there is one; else
the process's secret store) under ``gateway.<client>.token``; the settings never hold it, and the
app and ``echo-desk gateway --http`` read the same entry. Checking a token
compares it in constant time with each known client's; the token names its client, so a
connection cannot claim to be someone else.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable

from echo_desk.tools.secrets import SecretStore, secret_store

_store: SecretStore | None = None


def use_store(store: SecretStore | None) -> None:
    """Keep tokens in ``store`` (tests); ``None``: the keyring, or the process's secret store."""
    global _store
    _store = store


def token_store() -> SecretStore:
    if _store is not None:
        return _store
    from echo_desk.store.secrets import KeyringSecretStore, available

    return KeyringSecretStore() if available() else secret_store()


#: Why no token can be made or checked on a machine without a system keyring.
NO_KEYRING = ("this machine has no system keyring, so a client's token would be forgotten when the process "
              "that made it ends, and the HTTP gateway could never check it")


def tokens_kept() -> bool:
    """Whether a token made now outlives this process: the OS keyring holds it (or a store a test
    chose). Without one, a token would live in one process's memory only: the command that
    prints it and the gateway that checks it would never share it."""
    if _store is not None:
        return True
    from echo_desk.store.secrets import available

    return available()


def token_key(client: str) -> str:
    return f"gateway.{client}.token"


def new_token(client: str, store: SecretStore | None = None) -> str:
    """Make (or replace) ``client``'s token and return it: the only time it is shown."""
    token = secrets.token_urlsafe(32)
    (store or token_store()).set(token_key(client), token)
    return token


def has_token(client: str, store: SecretStore | None = None) -> bool:
    return bool((store or token_store()).get(token_key(client)))


def revoke_token(client: str, store: SecretStore | None = None) -> None:
    (store or token_store()).delete(token_key(client))


def client_for(token: str, clients: Iterable[str], store: SecretStore | None = None) -> str | None:
    """The client whose token ``token`` is, or ``None``."""
    if not token:
        return None
    found = None
    given = token.encode("utf-8")
    store = store or token_store()
    for client in clients:
        known = store.get(token_key(client))
        # Every client is compared (no early exit): the time taken says nothing about which.
        if known and hmac.compare_digest(known.encode("utf-8"), given):
            found = client
    return found
