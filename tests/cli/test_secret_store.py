"""The CLI keeps secrets in the system keyring when the machine has one (tests: an in-memory one)."""

from __future__ import annotations

import pytest

from echo_desk.cli.main import main
from echo_desk.store.secrets import KeyringSecretStore
from echo_desk.tools.secrets import MemorySecretStore, ProcessOnlySecretStore, secret_store, secrets_kept
from tests.providers.test_secrets_keyring import MemoryKeyring


def test_cli_selects_the_system_keyring(system_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(secret_store(), MemorySecretStore)
    assert main(["--no-mcp", "tools", "list", "--json"]) == 0
    assert isinstance(secret_store(), KeyringSecretStore)


def test_without_a_keyring_only_a_command_that_saves_a_secret_warns(
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    # "tools list" keeps no secret: a warning about forgotten secrets there is noise.
    assert main(["--no-mcp", "tools", "list", "--json"]) == 0
    assert isinstance(secret_store(), ProcessOnlySecretStore) and not secrets_kept()
    assert "no system keyring" not in caplog.text
    secret_store().set("providers.openai.api_key", "sk-1")
    secret_store().set("providers.gemini.api_key", "g-1")
    warnings = [r for r in caplog.records if "no system keyring" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelname == "WARNING" and "sk-1" not in caplog.text
