"""Where tools read their secrets (API keys, passwords) from.

The application installs the real store (the OS keyring) at start-up; tests install an
in-memory one. Tools call ``get_secret`` and never see where it lives.
"""

from __future__ import annotations

from typing import Protocol


class SecretStore(Protocol):
    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> None: ...


class MemorySecretStore:
    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def set(self, key: str, value: str) -> None:
        self._values[key] = value

    def delete(self, key: str) -> None:
        self._values.pop(key, None)


_store: SecretStore = MemorySecretStore()


def install_secret_store(store: SecretStore) -> None:
    global _store
    _store = store


def secret_store() -> SecretStore:
    return _store


def get_secret(key: str) -> str | None:
    """The secret saved under ``key`` (e.g. ``"weather.api_key"``), or ``None``."""
    try:
        return _store.get(key)
    except Exception:  # a locked or missing keyring is "not configured", not a crash  # noqa: BLE001
        return None
