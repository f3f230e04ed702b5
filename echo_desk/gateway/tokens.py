"""Bearer tokens of the HTTP gateway: one per client, shown once, kept only as a hash.

A token is 32 random bytes (URL-safe base64), printed once by ``echo-desk gateway token``. Echo
Desk keeps only its SHA-256, in ``gateway-tokens.json`` in the settings folder (0600): the app
and ``echo-desk gateway --http`` read the same file on any machine, with or without a system
keyring, and the file holds nothing a client could present. Checking a token compares its hash
with each known client's in constant time; the token names its client, so a connection cannot
claim to be someone else.

Tokens made before this file existed were kept whole in the OS keyring under
``gateway.<client>.token``; they still work until the client gets a new one or is revoked.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path

from echo_desk.common.file_cache import ReadWhenChanged
from echo_desk.common.json_text import read_json
from echo_desk.store.paths import config_dir
from echo_desk.store.private import changing_alone, write_private
from echo_desk.tools.secrets import SecretStore

TOKENS_FILE = "gateway-tokens.json"
_HASH_PREFIX = "sha256:"


def tokens_path() -> Path:
    return config_dir() / TOKENS_FILE


def token_key(client: str) -> str:
    """The keyring entry of a token made by an earlier version."""
    return f"gateway.{client}.token"


def _digest(token: str) -> str:
    return _HASH_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def _read(path: Path) -> dict[str, str]:
    """Client → token hash. A missing file is no tokens; an unreadable or damaged one is too
    (every request is then refused with 401, never let through), and a new token rewrites it."""
    try:
        document = read_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    clients = document.get("clients") if isinstance(document, dict) else None
    if not isinstance(clients, dict):
        return {}
    return {str(k): v for k, v in clients.items() if isinstance(v, str) and v.startswith(_HASH_PREFIX)}


#: The hashes as the HTTP gateway checks them: each request checks a token twice, and
#: ``echo-desk gateway token`` may replace the file while the gateway runs.
_read_cached: ReadWhenChanged[dict[str, str]] = ReadWhenChanged(_read, missing={})


@contextlib.contextmanager
def _changing() -> Iterator[dict[str, str]]:
    """The hashes, to change in place and write back; two commands at once take turns."""
    path = tokens_path()
    with changing_alone(path):
        hashes = _read(path)
        yield hashes
        write_private(path, json.dumps({"version": 1, "clients": hashes}, indent=2, sort_keys=True) + "\n")


def _legacy_store() -> SecretStore | None:
    """The keyring that held tokens made by an earlier version, when this machine has one."""
    from echo_desk.store.secrets import KeyringSecretStore, available

    return KeyringSecretStore() if available() else None


def new_token(client: str) -> str:
    """Make (or replace) ``client``'s token and return it: the only time it is shown."""
    token = secrets.token_urlsafe(32)
    with _changing() as hashes:
        hashes[client] = _digest(token)
    _forget_legacy(client)
    return token


def has_token(client: str) -> bool:
    return client in _read(tokens_path()) or bool(_legacy_token(client))


def revoke_token(client: str) -> None:
    with _changing() as hashes:
        hashes.pop(client, None)
    _forget_legacy(client)


def _legacy_token(client: str) -> str | None:
    store = _legacy_store()
    return store.get(token_key(client)) if store is not None else None


def _forget_legacy(client: str) -> None:
    store = _legacy_store()
    if store is not None:
        with contextlib.suppress(Exception):  # a locked keyring: the new hash wins over it anyway
            store.delete(token_key(client))


def client_for(token: str, known_clients: Iterable[str]) -> str | None:
    """The client whose token ``token`` is, or ``None``. A token made by ``echo-desk gateway
    token`` names its client on its own: the person made it for that client, which may not have
    connected yet (its profile is made, with the safe defaults, when it does). ``known_clients``
    (the profiles in the settings) are where tokens of earlier versions are looked for."""
    if not token:
        return None
    hashes = _read_cached(tokens_path())
    given = _digest(token).encode("ascii")
    found = None
    # Every hash is compared (no early exit): the time taken says nothing about which matched.
    for client, known in sorted(hashes.items()):
        if hmac.compare_digest(known.encode("ascii"), given):
            found = client
    unhashed = [client for client in known_clients if client not in hashes]
    legacy_store = _legacy_store() if found is None and unhashed else None
    if legacy_store is not None:
        raw = token.encode("utf-8")
        for client in unhashed:
            legacy = legacy_store.get(token_key(client))
            if legacy and hmac.compare_digest(legacy.encode("utf-8"), raw):
                found = client
    return found
