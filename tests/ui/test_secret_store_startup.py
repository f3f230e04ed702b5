"""The app and the CLI keep secrets in the system keyring when the machine has one.

Before this, nothing installed ``KeyringSecretStore``: API keys, ``{"keyring": …}`` references
of mcp.json and MCP sign-ins lived in memory and were gone at the next start.
"""

from __future__ import annotations

import keyring
import qasync
from keyring.backends import fail

from echo_desk.store.secrets import KeyringSecretStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.secrets import MemorySecretStore, ProcessOnlySecretStore, secret_store, secrets_kept
from echo_desk.ui.app.services import load_services
from tests.providers.test_secrets_keyring import MemoryKeyring


def test_app_start_up_selects_the_system_keyring(qloop: qasync.QEventLoop, system_keyring: MemoryKeyring) -> None:
    assert isinstance(secret_store(), MemorySecretStore)  # what the tests start with
    services = qloop.run_until_complete(load_services(SettingsStore.in_memory()))
    try:
        store = secret_store()
        assert isinstance(store, KeyringSecretStore)
        store.set("mcp.remote.headers.Authorization", "Bearer t")
        assert system_keyring.values[("echo-desk", "mcp.remote.headers.Authorization")] == "Bearer t"
    finally:
        qloop.run_until_complete(services.aclose())


def test_without_a_keyring_the_app_keeps_secrets_in_memory_and_knows_it(qloop: qasync.QEventLoop) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        services = qloop.run_until_complete(load_services(SettingsStore.in_memory()))
        qloop.run_until_complete(services.aclose())
        assert isinstance(secret_store(), ProcessOnlySecretStore) and not secrets_kept()
    finally:
        keyring.set_keyring(previous)

