"""Adding, editing and removing database connections, Qt-free (as ``mcp/editing.py`` is for MCP).

The Databases settings page only adapts this: ``validate`` says what is wrong with a typed
connection (``ConnectionFormError`` with a message marked ``N_`` for the UI to translate);
``save_connection`` and ``remove_connection`` keep the keyring and the settings in step — the
password is written (or moved to a renamed connection's key, or deleted for a SQLite file)
before the settings change, so a locked keyring changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlsplit

from echo_desk.builtins.database.connections import password_key
from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools import N_
from echo_desk.tools.secrets import secret_store

CONNECTION_NAME = re.compile(r"^[\w-]{1,64}$")


class ConnectionFormError(ValueError):
    """A connection that cannot be saved. ``message`` is marked with ``N_`` (show it with
    ``_()`` and ``.format(**params)``)."""

    def __init__(self, message: str, **params: str) -> None:
        super().__init__(message.format(**params))
        self.message = message
        self.params = params


def dsn_has_password(dsn: str) -> bool:
    """Whether a DSN carries a password (``user:secret@host``, ``?password=`` or ``password=``)."""
    if "://" not in dsn:
        return re.search(r"(?i)\bpassword\s*=", dsn) is not None
    parts = urlsplit(dsn)
    if ":" in parts.netloc.rpartition("@")[0]:
        return True
    return any(k.lower() == "password" for k, _v in parse_qsl(parts.query, keep_blank_values=True))


def validate(conn: DatabaseConnection, existing: Sequence[DatabaseConnection], editing: str | None) -> None:
    """Raise ``ConnectionFormError`` when ``conn`` cannot be saved (``editing``: its old name)."""
    if not CONNECTION_NAME.match(conn.name):
        raise ConnectionFormError(N_("Give the connection a name of letters, digits, “-” or “_” (at most 64)."))
    if conn.name != editing and any(c.name == conn.name for c in existing):
        raise ConnectionFormError(N_("A connection named “{name}” already exists."), name=conn.name)
    if not conn.dsn:
        if conn.kind == "sqlite":
            raise ConnectionFormError(N_("Enter the path of the SQLite file."))
        raise ConnectionFormError(N_("Enter the DSN, e.g. postgresql://user@localhost:5432/dbname."))
    if dsn_has_password(conn.dsn):
        raise ConnectionFormError(N_("Remove the password from the DSN and type it in the password field: it is "
                                     "kept in the system keyring, not in the settings file."))


def stored_password(name: str) -> str | None:
    """The password kept in the keyring for connection ``name`` (``None`` when there is none)."""
    return secret_store().get(password_key(name)) or None


def save_connection(settings: SettingsStore, conn: DatabaseConnection, *, editing: str | None = None,
                    password: str = "") -> None:
    """Store ``conn`` (replacing ``editing``, its old name, in place) and its typed ``password``.

    Raises ``ConnectionFormError`` for bad input and the secret store's error for a keyring that
    refuses; in both cases nothing was changed in the settings.
    """
    validate(conn, settings.current.databases, editing)
    _store_password(conn, editing, password)

    def change(s: Settings) -> None:
        others = [c for c in s.databases if c.name not in (editing, conn.name)]
        position = next((i for i, c in enumerate(s.databases) if c.name == editing), len(others))
        others.insert(min(position, len(others)), conn)
        s.databases = others

    # Saving also tells the database tools to check readiness again (they subscribe).
    settings.update(change)


def _store_password(conn: DatabaseConnection, old: str | None, typed: str) -> None:
    secrets = secret_store()
    if conn.kind == "sqlite":
        secrets.delete(password_key(conn.name))
    elif typed:
        secrets.set(password_key(conn.name), typed)
    elif old is not None and old != conn.name:
        kept = secrets.get(password_key(old))
        if kept:  # a renamed connection keeps its password
            secrets.set(password_key(conn.name), kept)
    if old is not None and old != conn.name:
        secrets.delete(password_key(old))


def remove_connection(settings: SettingsStore, name: str) -> None:
    """Remove connection ``name`` and its password. The password goes first: if the keyring
    refuses, its error is raised and the connection is kept (no password left behind)."""
    secret_store().delete(password_key(name))

    def change(s: Settings) -> None:
        s.databases = [c for c in s.databases if c.name != name]

    settings.update(change)
