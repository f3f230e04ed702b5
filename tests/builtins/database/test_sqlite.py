"""The database tools on SQLite files: read-only by the library, only inside the workspace."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from db_support import make_ctx

from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, DbSchemaTool
from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools import CancelledByUser, ErrorKind, ToolExecutionContext


def make_db(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, data BLOB, score REAL);
        INSERT INTO notes (body, data, score) VALUES ('first', x'00ff', 1.5), ('second', NULL, NULL);
        CREATE TABLE nums (n INTEGER);
        WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 300) INSERT INTO nums SELECT n FROM s;
    """)
    db.commit()
    db.close()
    return path


def count(path: Path, table: str = "notes") -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    make_db(ws / "app.db")
    return ws


def store_for(dsn: str, *, write_mode: bool = False) -> SettingsStore:
    return SettingsStore.in_memory(Settings(databases=[
        DatabaseConnection(name="local", kind="sqlite", dsn=dsn, write_mode=write_mode)]))


async def test_select_from_a_file_in_the_workspace(workspace: Path) -> None:
    store = store_for("app.db")  # relative: anchored in the workspace
    result = await DbQueryTool(lambda: store.current).execute(
        {"connection": "local", "sql": "SELECT id, body, data, score FROM notes ORDER BY id"}, make_ctx(workspace))
    assert result.success, result.error
    assert result.metadata["rows"] == [[1, "first", "\\x00ff", 1.5], [2, "second", None, None]]
    assert [c["type"] for c in result.metadata["columns"]] == ["integer", "text", "blob", "real"]


@pytest.mark.parametrize("sql", [
    "INSERT INTO notes (body) VALUES ('x')",
    "UPDATE notes SET body = 'y'",
    "DELETE FROM notes",
    "DROP TABLE notes",
    "CREATE TABLE t (x)",
    "PRAGMA query_only = OFF",
    "PRAGMA journal_mode = WAL",
    "VACUUM INTO 'copy.db'",
    "ATTACH 'other.db' AS o",
    "SELECT 1; DELETE FROM notes",
])
async def test_writes_are_refused_by_sqlite(workspace: Path, sql: str) -> None:
    make_db(workspace / "other.db")
    files = sorted(os.listdir(workspace))
    before = count(workspace / "app.db")
    store = store_for(str(workspace / "app.db"))
    result = await DbQueryTool(lambda: store.current).execute({"connection": "local", "sql": sql}, make_ctx(workspace))
    assert not result.success and result.error_kind is ErrorKind.BUSINESS, result.error
    assert count(workspace / "app.db") == before
    assert sorted(os.listdir(workspace)) == files  # not even an empty VACUUM INTO target


async def test_a_file_outside_the_workspace_is_refused(tmp_path: Path, workspace: Path) -> None:
    outside = make_db(tmp_path / "outside.db")
    (workspace / "link.db").symlink_to(outside)
    for dsn in (str(outside), "link.db", "../outside.db"):
        store = store_for(dsn)
        result = await DbQueryTool(lambda: store.current).execute(  # noqa: B023
            {"connection": "local", "sql": "SELECT * FROM notes"}, make_ctx(workspace))
        assert not result.success and result.error_kind is ErrorKind.BUSINESS
        assert "outside the workspace" in result.error and str(outside) in result.error
    missing = store_for("nope.db")
    result = await DbQueryTool(lambda: missing.current).execute(
        {"connection": "local", "sql": "SELECT 1"}, make_ctx(workspace))
    assert result.error_kind is ErrorKind.BUSINESS and "not found" in result.error
    assert not (workspace / "nope.db").exists()


async def test_row_cap_and_timeout(workspace: Path) -> None:
    store = store_for("app.db")
    capped = await DbQueryTool(lambda: store.current).execute(
        {"connection": "local", "sql": "SELECT n FROM nums ORDER BY n", "max_rows": 7}, make_ctx(workspace))
    assert capped.metadata["row_count"] == 7 and capped.metadata["more_rows"] == 293
    assert "293 more rows not shown" in capped.output
    forever = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s) SELECT count(*) FROM s"
    slow = await DbQueryTool(lambda: store.current, statement_timeout=0.3).execute(
        {"connection": "local", "sql": forever}, make_ctx(workspace))
    assert slow.error_kind is ErrorKind.TIMEOUT


async def test_stop_interrupts_a_running_statement(workspace: Path) -> None:
    store = store_for("app.db")
    ctx: ToolExecutionContext = make_ctx(workspace)
    ctx.cancel_event.set()  # pressed before the statement could finish: it is interrupted
    forever = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s) SELECT count(*) FROM s"
    with pytest.raises(CancelledByUser):
        await DbQueryTool(lambda: store.current).execute({"connection": "local", "sql": forever}, ctx)


async def test_schema(workspace: Path) -> None:
    store = store_for("app.db")
    result = await DbSchemaTool(lambda: store.current).execute({"connection": "local"}, make_ctx(workspace))
    assert "notes (table): id INTEGER pk, body TEXT not null, data BLOB, score REAL" in result.output
    assert [t["name"] for t in result.metadata["tables"]] == ["notes", "nums"]


async def test_write_mode_commits_and_stays_inside_the_write_roots(workspace: Path, tmp_path: Path) -> None:
    store = store_for("app.db", write_mode=True)
    tool = DbExecuteTool(lambda: store.current)
    ctx = make_ctx(workspace, tool="db_execute")
    sql = "INSERT INTO notes (body) VALUES ('third')"
    preview = await tool.preview({"connection": "local", "sql": sql}, ctx)
    assert preview is not None
    assert preview.targets[0].value == str(workspace / 'app.db')
    assert preview.targets[0].detail == "connection local; SQLite, write mode"
    assert preview.targets[1].value == sql
    result = await tool.execute({"connection": "local", "sql": sql}, ctx)
    assert result.success and "1 rows affected" in result.output
    assert count(workspace / "app.db") == 3
    bad = await tool.execute({"connection": "local", "sql": "INSERT INTO notes (body) VALUES (NULL)"}, ctx)
    assert bad.error_kind is ErrorKind.BUSINESS and "NOT NULL" in bad.error
    assert count(workspace / "app.db") == 3
    # Readable but not writable (read-only scope): refused before the file is opened for writing.
    read_only = make_ctx(workspace, tool="db_execute", writable=False)
    refused = await tool.execute({"connection": "local", "sql": sql}, read_only)
    assert refused.error_kind is ErrorKind.BUSINESS and count(workspace / "app.db") == 3


async def test_a_change_runs_on_the_database_shown_or_not_at_all(workspace: Path) -> None:
    # The dialog named <ws>/a.db; the connection's file is a link that now leads to b.db.
    make_db(workspace / "a.db")
    make_db(workspace / "b.db")
    (workspace / "shop.db").symlink_to(workspace / "a.db")
    store = store_for("shop.db", write_mode=True)
    tool, ctx = DbExecuteTool(lambda: store.current), make_ctx(workspace)
    params = {"connection": "local", "sql": "DELETE FROM notes"}
    ctx.preview = await tool.preview(params, ctx)
    assert ctx.preview is not None and ctx.preview.targets[0].value == str((workspace / "a.db").resolve())
    (workspace / "shop.db").unlink()
    (workspace / "shop.db").symlink_to(workspace / "b.db")
    result = await tool.execute(params, ctx)
    assert not result.success and result.error_kind is ErrorKind.BUSINESS, result
    assert "changed since" in result.error
    assert count(workspace / "b.db") == 2 and count(workspace / "a.db") == 2
