"""The OS keyring as Echo Desk's secret store (API keys, database passwords, MCP sign-ins).

The app and the CLI call ``install_system_store()`` at start-up, which installs
``KeyringSecretStore`` when the machine has a keyring; tests keep the in-memory store. Values
are never logged; errors name the key, not the value.
"""

from __future__ import annotations

import logging

import keyring
from keyring.errors import KeyringError, PasswordDeleteError

SERVICE = "echo-desk"

log = logging.getLogger(__name__)


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


def install_system_store() -> bool:
    """Make the OS keyring the secret store of this process when there is one; ``False`` when the
    machine has no keyring: secrets saved then last until the process ends, and the first one
    saved logs a warning (a command that saves none, such as ``tools list``, says nothing)."""
    from echo_desk.tools.secrets import ProcessOnlySecretStore, install_secret_store

    if not available():
        install_secret_store(ProcessOnlySecretStore(on_first_save=_warn_secret_forgotten))
        return False
    install_secret_store(KeyringSecretStore())
    return True


def _warn_secret_forgotten() -> None:
    log.warning("no system keyring: a secret was saved that will be forgotten when this process ends "
                "(API keys, passwords and MCP sign-ins last only until Echo Desk exits)")
