"""Where tools read their secrets (API keys, passwords) from.

The application installs the real store (the OS keyring) at start-up; tests install an
in-memory one. Tools call ``get_secret`` and never see where it lives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class SecretStore(Protocol):
    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> None: ...


class MemorySecretStore:
    """Secrets in this process's memory: the tests' stand-in for a keyring."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def set(self, key: str, value: str) -> None:
        self._values[key] = value

    def delete(self, key: str) -> None:
        self._values.pop(key, None)


class ProcessOnlySecretStore(MemorySecretStore):
    """The secret store of a machine without a keyring: a value saved lasts until the process
    ends. Callers ask ``secrets_kept()`` before they move a value here from a file that would
    have kept it, and say so where a person types one."""

    def __init__(self, on_first_save: Callable[[], None] | None = None) -> None:
        super().__init__()
        self._on_first_save = on_first_save

    def set(self, key: str, value: str) -> None:
        super().set(key, value)
        if self._on_first_save is not None:  # warned where it matters: a secret is being lost
            warn, self._on_first_save = self._on_first_save, None
            warn()


_store: SecretStore = MemorySecretStore()


def install_secret_store(store: SecretStore) -> None:
    global _store
    _store = store


def secret_store() -> SecretStore:
    return _store


def secrets_kept() -> bool:
    """Whether a secret saved now outlives this process (``False`` on a machine without a keyring)."""
    return not isinstance(_store, ProcessOnlySecretStore)


def get_secret(key: str) -> str | None:
    """The secret saved under ``key`` (e.g. ``"weather.api_key"``), or ``None``."""
    try:
        return _store.get(key)
    except Exception:  # a locked or missing keyring is "not configured", not a crash  # noqa: BLE001
        return None
