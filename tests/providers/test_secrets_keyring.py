"""KeyringSecretStore against an in-memory keyring backend (headless machines have none)."""

from __future__ import annotations

import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked, PasswordDeleteError

from echo_desk.store.secrets import KeyringSecretStore, SecretStoreError


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}
        self.locked = False

    def get_password(self, service: str, username: str) -> str | None:
        if self.locked:
            raise KeyringLocked("locked")
        return self.values.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.locked:
            raise KeyringLocked("locked")
        self.values[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.values:
            raise PasswordDeleteError("absent")
        del self.values[(service, username)]



def test_round_trip_under_echo_desk_service(system_keyring: MemoryKeyring) -> None:
    store = KeyringSecretStore()
    store.set("providers.openai.api_key", "sk-1")
    assert system_keyring.values == {("echo-desk", "providers.openai.api_key"): "sk-1"}
    assert store.get("providers.openai.api_key") == "sk-1"
    store.delete("providers.openai.api_key")
    store.delete("providers.openai.api_key")  # absent: no error
    assert store.get("providers.openai.api_key") is None


def test_locked_keyring_reads_as_absent_and_refuses_writes_clearly(system_keyring: MemoryKeyring) -> None:
    system_keyring.locked = True
    store = KeyringSecretStore()
    assert store.get("k") is None
    with pytest.raises(SecretStoreError, match="'k'") as info:
        store.set("k", "the-secret-value")
    assert "the-secret-value" not in str(info.value)
