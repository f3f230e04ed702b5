"""The HTTP gateway's bearer tokens: kept as hashes in a 0600 file, checked in constant time,
and failing closed when the file is damaged."""

from __future__ import annotations

import json

from echo_desk.gateway.tokens import client_for, has_token, new_token, revoke_token, token_key, tokens_path
from echo_desk.store.secrets import KeyringSecretStore
from tests.providers.test_secrets_keyring import MemoryKeyring


def test_the_file_holds_each_clients_hash_and_never_a_token() -> None:
    cursor, vscode = new_token("cursor"), new_token("vscode")
    text = tokens_path().read_text()
    assert cursor not in text and vscode not in text
    assert set(json.loads(text)["clients"]) == {"cursor", "vscode"}
    assert (tokens_path().stat().st_mode & 0o777) == 0o600
    assert client_for(cursor, ["cursor", "vscode"]) == "cursor"
    assert client_for(vscode, ["cursor", "vscode"]) == "vscode"
    assert client_for(cursor, []) == "cursor"  # made for a client that has not connected yet
    assert client_for("", ["cursor"]) is None and client_for(cursor[:-1], ["cursor"]) is None


def test_a_new_token_replaces_the_old_and_revoking_ends_it() -> None:
    old = new_token("cursor")
    new = new_token("cursor")
    assert client_for(old, ["cursor"]) is None and client_for(new, ["cursor"]) == "cursor"
    revoke_token("cursor")
    assert client_for(new, ["cursor"]) is None and not has_token("cursor")


def test_a_damaged_file_lets_no_one_in_and_a_new_token_mends_it() -> None:
    token = new_token("cursor")
    for damage in ("{", "[]", '{"clients": {"cursor": "plain-token"}}', '{"clients": ["cursor"]}', ""):
        tokens_path().write_text(damage)
        assert client_for(token, ["cursor"]) is None, damage
    again = new_token("cursor")
    assert client_for(again, ["cursor"]) == "cursor"


def test_a_token_an_earlier_version_kept_in_the_keyring_works_until_replaced(system_keyring: MemoryKeyring) -> None:
    KeyringSecretStore().set(token_key("cursor"), "an-old-token-from-the-keyring")
    assert has_token("cursor") and client_for("an-old-token-from-the-keyring", ["cursor"]) == "cursor"
    new = new_token("cursor")
    assert system_keyring.values == {}  # the whole token leaves the keyring
    assert client_for("an-old-token-from-the-keyring", ["cursor"]) is None
    assert client_for(new, ["cursor"]) == "cursor"
