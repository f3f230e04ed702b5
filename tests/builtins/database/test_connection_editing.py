"""Database connections edited without Qt: the rules the Databases page only adapts."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.builtins.database.connection_editing import (
    ConnectionFormError,
    dsn_has_password,
    remove_connection,
    save_connection,
    stored_password,
)
from echo_desk.store.settings import DatabaseConnection, SettingsStore
from echo_desk.tools import secrets


@pytest.fixture
def settings(tmp_path: Path) -> SettingsStore:
    return SettingsStore.in_dir(tmp_path / "config")


def _pg(name: str, dsn: str = "postgresql://app@localhost/shop") -> DatabaseConnection:
    return DatabaseConnection(name=name, kind="postgres", dsn=dsn)


class _LockedKeyring(secrets.MemorySecretStore):
    def set(self, key: str, value: str) -> None:
        raise RuntimeError(f"locked: {key}")

    def delete(self, key: str) -> None:
        raise RuntimeError(f"locked: {key}")


@pytest.mark.parametrize(("dsn", "has"), [
    ("postgresql://app:pw@localhost/shop", True),
    ("postgresql://app@localhost/shop?password=pw", True),
    ("host=localhost password=pw", True),
    ("postgresql://app@localhost/shop", False),
    ("shop.sqlite3", False),
])
def test_a_password_inside_a_dsn_is_recognised(dsn, has):
    assert dsn_has_password(dsn) is has


def test_bad_input_is_refused_with_a_translatable_reason_and_nothing_is_stored(settings):
    cases = [(_pg("bad name!"), "name of letters"), (_pg("shop", ""), "Enter the DSN"),
             (DatabaseConnection(name="f", kind="sqlite", dsn=""), "SQLite file"),
             (_pg("shop", "postgresql://app:pw@localhost/shop"), "Remove the password")]
    for conn, words in cases:
        with pytest.raises(ConnectionFormError) as caught:
            save_connection(settings, conn, password="pw")
        assert words in caught.value.message
    assert settings.current.databases == [] and stored_password("shop") is None
    save_connection(settings, _pg("shop"))
    with pytest.raises(ConnectionFormError, match="already exists"):
        save_connection(settings, _pg("shop"))


def test_a_rename_moves_the_password_and_keeps_the_place(settings):
    save_connection(settings, _pg("a"), password="pa")
    save_connection(settings, _pg("shop"), password="s3cret")
    save_connection(settings, _pg("sales"), editing="shop")
    assert [c.name for c in settings.current.databases] == ["a", "sales"]
    assert stored_password("sales") == "s3cret" and stored_password("shop") is None
    # A SQLite file needs no password: any old one is dropped.
    save_connection(settings, DatabaseConnection(name="sales", kind="sqlite", dsn="s.db"), editing="sales")
    assert stored_password("sales") is None


def test_a_locked_keyring_changes_nothing(settings):
    save_connection(settings, _pg("shop"), password="old")
    before = settings.current.databases
    secrets.install_secret_store(_LockedKeyring())
    with pytest.raises(Exception, match="locked"):
        save_connection(settings, _pg("shop", "postgresql://other@localhost/shop"), editing="shop", password="new")
    with pytest.raises(Exception, match="locked"):
        remove_connection(settings, "shop")
    assert settings.current.databases == before
