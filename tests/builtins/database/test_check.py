""""Test connection" (the settings page's check) against the real PostgreSQL server and SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from db_support import READER_PASSWORD, PgInfo

from echo_desk.builtins.database.check import CheckKind, check_connection
from echo_desk.store.settings import DatabaseConnection


def test_postgres_connects_or_says_what_is_wrong(pg: PgInfo):
    conn = DatabaseConnection(name="shop", kind="postgres", dsn=pg.dsn("reader"))
    assert check_connection(conn, READER_PASSWORD, None).kind is CheckKind.OK
    assert check_connection(conn, None, None).kind is CheckKind.PASSWORD_MISSING
    wrong = check_connection(conn, "not-the-password", None)
    assert wrong.kind is CheckKind.FAILED and "password authentication failed" in wrong.detail
    refused = DatabaseConnection(name="x", kind="postgres", dsn="postgresql://reader@127.0.0.1:1/shop")
    result = check_connection(refused, "pw", None)
    assert result.kind is CheckKind.FAILED and "unavailable" in result.detail


def test_sqlite_must_exist_inside_the_workspace(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    sqlite3.connect(workspace / "a.db").close()
    sqlite3.connect(tmp_path / "out.db").close()
    (workspace / "link.db").symlink_to(tmp_path / "out.db")

    def kind(dsn: str, ws: Path | None = workspace) -> CheckKind:
        return check_connection(DatabaseConnection(name="s", kind="sqlite", dsn=dsn), None, ws).kind

    assert kind("a.db") is CheckKind.OK
    assert kind("sqlite:///a.db") is CheckKind.OK
    assert kind("missing.db") is CheckKind.FILE_NOT_FOUND
    assert kind(str(tmp_path / "out.db")) is CheckKind.OUTSIDE_WORKSPACE
    assert kind("link.db") is CheckKind.OUTSIDE_WORKSPACE  # a link out of the workspace is outside
    assert kind("a.db", None) is CheckKind.NO_WORKSPACE
    assert kind(str(workspace / "a.db"), None) is CheckKind.OK_NO_WORKSPACE
