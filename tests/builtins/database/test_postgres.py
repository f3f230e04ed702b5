"""db_query / db_schema / db_execute against a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from db_support import PgInfo, make_ctx

from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, DbSchemaTool
from echo_desk.store.settings import DatabaseConnection, SettingsStore
from echo_desk.tools import CancelledByUser, ErrorKind, ToolExecutionContext
from echo_desk.tools.secrets import secret_store


def query_tool(store: SettingsStore, **kwargs: float) -> DbQueryTool:
    return DbQueryTool(lambda: store.current, **kwargs)


async def test_select_returns_rows_columns_and_types(pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    result = await query_tool(pg_settings).execute(
        {"connection": "shop", "sql": "SELECT id, name, price, added FROM items ORDER BY id"}, ctx)
    assert result.success, result.error
    assert result.output.splitlines()[0].split(" | ")[1].strip() == "name"
    assert "apple" in result.output and "(3 rows)" in result.output
    meta = result.metadata
    assert [c["name"] for c in meta["columns"]] == ["id", "name", "price", "added"]
    assert [c["type"] for c in meta["columns"]] == ["int4", "text", "numeric", "date"]
    assert meta["rows"][0] == [1, "apple", "1.20", "2024-01-02"]
    assert meta["rows"][2][3] is None and "NULL" in result.output
    assert meta["more_rows"] == 0


@pytest.mark.parametrize("sql", [
    "INSERT INTO items (name, price) VALUES ('kiwi', 3)",
    "UPDATE items SET price = 0",
    "DELETE FROM items",
    "DROP TABLE items",
    "TRUNCATE items",
    "CREATE TABLE sneaky (x int)",
    "SELECT nextval('items_id_seq')",
    "COMMIT; INSERT INTO items (name) VALUES ('after-commit')",
    "SET TRANSACTION READ WRITE",
    "DO $$ BEGIN SET TRANSACTION READ WRITE; INSERT INTO items (name) VALUES ('do'); END $$",
    "WITH gone AS (DELETE FROM items RETURNING *) SELECT count(*) FROM gone",
])
async def test_writes_are_refused_by_the_database(pg: PgInfo, pg_settings: SettingsStore,
                                                  ctx: ToolExecutionContext, sql: str) -> None:
    before = (await pg.count("items"), await pg.count("big"))
    result = await query_tool(pg_settings).execute({"connection": "shop", "sql": sql}, ctx)
    assert not result.success
    assert result.error_kind is ErrorKind.BUSINESS, result.error
    assert (await pg.count("items"), await pg.count("big")) == before
    assert await pg.count("pg_class WHERE relname = 'sneaky'") == 0


async def test_copy_to_program_is_refused(pg: PgInfo, pg_settings: SettingsStore, tmp_path: Path,
                                          ctx: ToolExecutionContext) -> None:
    marker = Path("/tmp") / f"echo-desk-copy-{tmp_path.name}"
    marker.unlink(missing_ok=True)
    before = await pg.count("items")
    for connection in ("shop", "shop_admin"):
        result = await query_tool(pg_settings).execute(
            {"connection": connection, "sql": f"COPY items TO PROGRAM 'touch {marker}'"}, ctx)
        assert not result.success and result.error_kind is ErrorKind.BUSINESS
        assert not marker.exists(), f"the program ran through {connection}"
    assert await pg.count("items") == before


async def test_a_superuser_connection_is_refused_for_free_form_reads(
        pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    # A read-only transaction does not stop a superuser's COPY ... TO PROGRAM: db_query refuses.
    result = await query_tool(pg_settings).execute({"connection": "shop_admin", "sql": "SELECT 1"}, ctx)
    assert not result.success and result.error_kind is ErrorKind.BUSINESS
    assert "superuser" in result.error and "pg_read_all_data" in result.error
    # db_schema runs only its own catalog query, so it stays available.
    listing = await DbSchemaTool(lambda: pg_settings.current).execute({"connection": "shop_admin"}, ctx)
    assert listing.success and "public.items (table)" in listing.output


async def test_a_long_query_hits_the_statement_timeout(pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    started = time.monotonic()
    result = await query_tool(pg_settings, statement_timeout=0.5).execute(
        {"connection": "shop", "sql": "SELECT pg_sleep(20)"}, ctx)
    assert not result.success and result.error_kind is ErrorKind.TIMEOUT
    assert "statement timeout" in result.error
    assert time.monotonic() - started < 10


async def _wait_for_backend(pg: PgInfo, needle: str, deadline: float = 10.0) -> int:
    admin = await pg.admin()
    try:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            pid = await admin.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()"
                " AND state = 'active'", f"%{needle}%")
            if pid:
                return int(pid)
            await asyncio.sleep(0.02)
        raise AssertionError(f"no backend running {needle!r} within {deadline} s")
    finally:
        await admin.close()


async def test_a_dropped_connection_mid_query_is_a_dependency_error(
        pg: PgInfo, pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    call = asyncio.create_task(query_tool(pg_settings).execute(
        {"connection": "shop", "sql": "SELECT pg_sleep(30) AS terminate_me"}, ctx))
    pid = await _wait_for_backend(pg, "terminate_me")
    admin = await pg.admin()
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    result = await asyncio.wait_for(call, 10)
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert result.error_kind.counts_toward_breaker


async def test_stop_cancels_a_running_query(pg: PgInfo, pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    call = asyncio.create_task(query_tool(pg_settings).execute(
        {"connection": "shop", "sql": "SELECT pg_sleep(30) AS cancel_me"}, ctx))
    await _wait_for_backend(pg, "cancel_me")
    ctx.cancel_event.set()
    with pytest.raises(CancelledByUser):
        await asyncio.wait_for(call, 10)
    admin = await pg.admin()
    try:  # the server-side statement ends too, not only our wait for it
        end = time.monotonic() + 10
        while await admin.fetchval("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%cancel_me%'"
                                   " AND state = 'active' AND pid <> pg_backend_pid()"):
            assert time.monotonic() < end, "the statement kept running on the server"
            await asyncio.sleep(0.02)
    finally:
        await admin.close()


async def test_row_cap_says_how_many_more_rows(pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    result = await query_tool(pg_settings).execute(
        {"connection": "shop", "sql": "SELECT n FROM big ORDER BY n", "max_rows": 10}, ctx)
    assert result.success
    assert result.metadata["row_count"] == 10 and result.metadata["rows"][-1] == [10]
    assert result.metadata["more_rows"] == 490 and result.metadata["more_rows_exact"]
    assert "490 more rows not shown" in result.output


async def test_odd_types_become_json_safe(pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    result = await query_tool(pg_settings).execute({"connection": "shop", "sql": "SELECT * FROM odd"}, ctx)
    assert result.success, result.error
    row = dict(zip([c["name"] for c in result.metadata["columns"]], result.metadata["rows"][0], strict=True))
    json.dumps(result.metadata, allow_nan=False)  # raises if anything is not JSON-safe
    assert row["d"] == "2024-03-04"
    assert row["ts"] == "2024-03-04T05:06:07+00:00"
    assert row["num"] == "12345678901234567890.123456789"  # exact, not a float
    assert row["b"] == "\\x00ff10"
    assert row["u"] == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    assert row["iv"] == "P1DT2H3M4S"
    assert row["arr"] == [1, 2, None]
    assert row["j"] == {"k": [1, "two"]}
    assert row["ip"] == "192.168.0.1"
    assert row["f"] == "nan"
    assert row["txt"] == "line1\nline2 | x" and "line1\\nline2 \\| x" in result.output
    assert row["flag"] is True


async def test_sql_errors_are_business_with_the_server_message(pg_settings: SettingsStore,
                                                                ctx: ToolExecutionContext) -> None:
    result = await query_tool(pg_settings).execute({"connection": "shop", "sql": "SELEC 1"}, ctx)
    assert result.error_kind is ErrorKind.BUSINESS and "syntax error" in result.error
    result = await query_tool(pg_settings).execute({"connection": "shop", "sql": "SELECT nope FROM items"}, ctx)
    assert result.error_kind is ErrorKind.BUSINESS and 'column "nope" does not exist' in result.error


async def test_connection_problems_are_dependency_errors_and_readiness_says_why(
        pg: PgInfo, pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    from db_pgserver import free_port

    dead = f"postgresql://reader@127.0.0.1:{free_port()}/shop"
    pg_settings.update(lambda s: setattr(s, "databases", [
        DatabaseConnection(name="down", kind="postgres", dsn=dead),
        DatabaseConnection(name="nopw", kind="postgres", dsn=pg.dsn("reader")),
        DatabaseConnection(name="badpw", kind="postgres", dsn=pg.dsn("reader")),
    ]))
    secret_store().set("database.down.password", "x")
    secret_store().set("database.badpw.password", "wrong")
    tool = query_tool(pg_settings)
    result = await tool.execute({"connection": "down", "sql": "SELECT 1"}, ctx)
    assert result.error_kind is ErrorKind.DEPENDENCY
    result = await tool.execute({"connection": "badpw", "sql": "SELECT 1"}, ctx)
    assert result.error_kind is ErrorKind.DEPENDENCY and "password" in result.error
    result = await tool.execute({"connection": "nopw", "sql": "SELECT 1"}, ctx)
    assert result.error_kind is ErrorKind.BUSINESS and "database.nopw.password" in result.error
    # badpw's server answers, so the tool is ready; without it, both problems are named.
    assert tool.is_ready()
    pg_settings.update(lambda s: setattr(s, "databases", s.databases[:2]))
    assert not tool.is_ready()
    assert tool.readiness_detail() == "down: connection refused; nopw: password missing"


async def test_schema_lists_tables_columns_and_keys(pg_settings: SettingsStore, ctx: ToolExecutionContext) -> None:
    tool = DbSchemaTool(lambda: pg_settings.current)
    result = await tool.execute({"connection": "shop"}, ctx)
    assert result.success, result.error
    assert ("public.items (table): id integer pk, name text not null, price numeric(10,2), added date"
            in result.output)
    assert "public.cheap (view): name text" in result.output
    one = await tool.execute({"connection": "shop", "table": "public.big"}, ctx)
    assert [t["name"] for t in one.metadata["tables"]] == ["big"]
    missing = await tool.execute({"connection": "shop", "table": "nope"}, ctx)
    assert missing.error_kind is ErrorKind.BUSINESS


async def test_write_mode_runs_in_a_committed_transaction(pg: PgInfo, pg_settings: SettingsStore,
                                                          tmp_path: Path) -> None:
    tool = DbExecuteTool(lambda: pg_settings.current)
    ctx = make_ctx(tmp_path, tool="db_execute")
    assert tool.parameters["properties"]["connection"]["enum"] == ["shop_rw"]
    sql = "INSERT INTO items (name, price) VALUES ('fig', 4.10) RETURNING id, name"
    preview = await tool.preview({"connection": "shop_rw", "sql": sql}, ctx)
    assert preview is not None
    database, statement = preview.targets
    assert database.kind == "database" and database.value == pg.dsn('writer')
    assert statement.kind == "other" and statement.value == sql
    before = await pg.count("items")
    result = await tool.execute({"connection": "shop_rw", "sql": sql}, ctx)
    assert result.success, result.error
    assert result.metadata["rows"][0][1] == "fig" and "INSERT 0 1" in result.output
    assert await pg.count("items") == before + 1
    # A failing statement changes nothing: the unique name is refused by the database.
    dup = await tool.execute({"connection": "shop_rw", "sql": "INSERT INTO items (name) VALUES ('fig')"}, ctx)
    assert dup.error_kind is ErrorKind.BUSINESS and "duplicate key" in dup.error
    await tool.execute({"connection": "shop_rw", "sql": "DELETE FROM items WHERE name = 'fig'"}, ctx)
    assert await pg.count("items") == before
    # A read-only connection is not a write target, whatever the model asks.
    refused = await tool.execute({"connection": "shop", "sql": "DELETE FROM items"}, ctx)
    assert refused.error_kind is ErrorKind.VALIDATION and await pg.count("items") == before


@pytest.mark.parametrize(("sql", "expected"), [
    ("SHOW statement_timeout", "1500ms"),  # proves the limit is set inside the transaction
    ("SHOW transaction_read_only", "on"),
    ("VALUES (1, 'a')", "columns: column1 int4, column2 text"),
    ("EXPLAIN SELECT * FROM items", "Seq Scan on items"),
    ("SELECT FROM items", "SELECT 3"),
])
async def test_other_statement_shapes(pg_settings: SettingsStore, ctx: ToolExecutionContext,
                                      sql: str, expected: str) -> None:
    result = await query_tool(pg_settings, statement_timeout=1.5).execute({"connection": "shop", "sql": sql}, ctx)
    assert result.success, result.error
    assert expected in result.output
