"""The OS keyring as Echo Desk's secret store (API keys, database passwords).

The app installs it with ``echo_desk.tools.secrets.install_secret_store(KeyringSecretStore())``;
tests keep the in-memory store. Values are never logged; errors name the key, not the value.
"""

from __future__ import annotations

import keyring
from keyring.errors import KeyringError, PasswordDeleteError

SERVICE = "echo-desk"


class SecretStoreError(Exception):
    """The keyring refused a change (locked, missing backend); the message says which key."""


class KeyringSecretStore:
    """``SecretStore`` on top of ``keyring``: one entry per key under the service ``echo-desk``."""

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service

    def get(self, key: str) -> str | None:
        try:
            return keyring.get_password(self.service, key)
        except KeyringError:
            return None  # "not configured" reads better than a crash; setting it shows the error

    def set(self, key: str, value: str) -> None:
        try:
            keyring.set_password(self.service, key, value)
        except KeyringError as exc:
            raise SecretStoreError(f"could not save {key!r} in the system keyring: {type(exc).__name__}") from None

    def delete(self, key: str) -> None:
        try:
            keyring.delete_password(self.service, key)
        except PasswordDeleteError:
            pass  # already absent
        except KeyringError as exc:
            raise SecretStoreError(f"could not delete {key!r} from the system keyring: {type(exc).__name__}") from None


def available() -> bool:
    """Whether a real keyring backend exists (headless Linux often has none)."""
    from keyring.backends import fail

    return not isinstance(keyring.get_keyring(), fail.Keyring)
