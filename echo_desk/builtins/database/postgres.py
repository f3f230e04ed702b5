"""PostgreSQL through asyncpg. Read-only is the database's job, not ours:

* every read runs in ``BEGIN READ ONLY`` with ``SET LOCAL statement_timeout`` and is rolled back;
* a ``SELECT 1`` runs first, so the statement can no longer switch the transaction to
  ``READ WRITE`` (PostgreSQL allows that only before the first query);
* the statement goes through the extended protocol (a prepared statement), which refuses more
  than one command, so ``COMMIT; INSERT ...`` cannot escape the transaction;
* a role that may run server programs or write server files (a superuser, or a member of
  ``pg_execute_server_program`` / ``pg_write_server_files``) is refused for free-form reads:
  ``COPY ... TO PROGRAM`` runs even inside a read-only transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import asyncpg

from echo_desk.builtins.database.formatting import (
    Column,
    QueryResult,
    TableColumn,
    TableInfo,
)
from echo_desk.builtins.database.values import json_safe, parse_json_column
from echo_desk.i18n import N_, for_person, quoted_later
from echo_desk.store.settings import DatabaseConnection
from echo_desk.tools import ErrorKind, ToolError

CONNECT_TIMEOUT_SECONDS = 10.0
#: Rows past the cap are counted (server side, not transferred) up to this many.
COUNT_REST_LIMIT = 100_000
#: The client-side backstop fires this long after the server's statement_timeout should have.
CLIENT_GRACE_SECONDS = 5.0

_CAN_ESCAPE_READ_ONLY = """
SELECT r.rolsuper
    OR pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER')
    OR pg_has_role(current_user, 'pg_write_server_files', 'MEMBER')
FROM pg_roles r WHERE r.rolname = current_user
"""

_SCHEMA_QUERY = """
SELECT n.nspname, c.relname, c.relkind::text, a.attname, format_type(a.atttypid, a.atttypmod),
       a.attnotnull,
       EXISTS (SELECT 1 FROM pg_index i
               WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY (i.indkey))
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
  AND NOT c.relispartition
  AND ($1::text IS NULL OR c.relname = $1 OR n.nspname || '.' || c.relname = $1)
ORDER BY n.nspname, c.relname, a.attnum
"""

_RELKINDS = {"r": "table", "v": "view", "m": "materialized view", "p": "partitioned table",
             "f": "foreign table"}


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    for extra in ("detail", "hint"):
        value = getattr(exc, extra, None)
        if value:
            text += f"\n{extra.upper()}: {value}"
    return text


def map_error(exc: BaseException, timeout_seconds: float) -> ToolError:
    """Syntax/constraint/permission → business (the server's message); connection → dependency
    (so the breaker works); statement timeout → timeout."""
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return ToolError(for_person(f"the statement did not finish within {timeout_seconds:g} s",
                                    N_("The statement did not finish within {seconds} s."),
                                    seconds=f"{timeout_seconds:g}"), kind=ErrorKind.TIMEOUT)
    if isinstance(exc, asyncpg.PostgresError):
        state = exc.sqlstate or ""
        if isinstance(exc, asyncpg.QueryCanceledError) and "statement timeout" in str(exc):
            return ToolError(for_person(f"canceling statement due to statement timeout ({timeout_seconds:g} s)",
                                        N_("The statement did not finish within {seconds} s."),
                                        seconds=f"{timeout_seconds:g}"), kind=ErrorKind.TIMEOUT)
        if state[:2] in ("08", "53", "57", "58", "XX") or state in ("28P01", "28000", "3D000"):
            return _unavailable(_describe(exc))
        return ToolError(_describe(exc), kind=ErrorKind.BUSINESS)
    if isinstance(exc, OSError | asyncpg.InterfaceError | ConnectionError):
        # Refused, reset, or asyncpg's ConnectionDoesNotExistError after the backend died.
        return _unavailable(_describe(exc))
    raise exc


def _unavailable(why: str) -> ToolError:
    return ToolError(for_person(f"database unavailable: {why}", N_("The database is unavailable: {error}"), error=why),
                     kind=ErrorKind.DEPENDENCY)


async def _connect(conn: DatabaseConnection, password: str | None) -> Any:
    return await asyncpg.connect(
        dsn=conn.dsn or None, password=password, timeout=CONNECT_TIMEOUT_SECONDS,
        server_settings={"application_name": "echo-desk"},
    )


async def _close(pg: Any) -> None:
    try:
        await asyncio.wait_for(pg.close(), 2.0)
    except Exception:  # already broken: drop it without ceremony  # noqa: BLE001
        pg.terminate()


async def _fetch_capped(pg: Any, sql: str, max_rows: int, readonly: bool) -> QueryResult:
    stmt = await pg.prepare(sql)
    attributes = stmt.get_attributes()
    columns = [Column(a.name, a.type.name) for a in attributes]
    json_cols = {i for i, a in enumerate(attributes) if a.type.name in ("json", "jsonb")}
    more, exact = 0, True
    if attributes and readonly:
        # A cursor pulls only the rows we show; the rest are counted by MOVE, never sent.
        cursor = await stmt.cursor()
        records = await cursor.fetch(max_rows)
        if len(records) == max_rows:
            more = await cursor.forward(COUNT_REST_LIMIT)
            exact = more < COUNT_REST_LIMIT
    else:
        # Writes run to completion whatever we show (RETURNING lists are fetched whole).
        records = await stmt.fetch()
        more = max(0, len(records) - max_rows)
        records = records[:max_rows]
    rows = [[json_safe(parse_json_column(v) if i in json_cols else v) for i, v in enumerate(r)]
            for r in records]
    status = stmt.get_statusmsg() if not attributes or not readonly else ""
    return QueryResult(columns, rows, more, exact, status)


async def run_statement(conn: DatabaseConnection, password: str | None, sql: str, *, max_rows: int,
                        timeout_seconds: float, readonly: bool) -> QueryResult:
    """Run one statement; read-only (always rolled back) or write (committed on success)."""
    started = time.monotonic()
    try:
        return await asyncio.wait_for(
            _run(conn, password, sql, max_rows, timeout_seconds, readonly, started),
            timeout_seconds + CLIENT_GRACE_SECONDS + CONNECT_TIMEOUT_SECONDS)
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
            raise
        raise map_error(exc, timeout_seconds) from exc


async def _run(conn: DatabaseConnection, password: str | None, sql: str, max_rows: int,
               timeout_seconds: float, readonly: bool, started: float) -> QueryResult:
    pg = await _connect(conn, password)
    try:
        if readonly and await pg.fetchval(_CAN_ESCAPE_READ_ONLY):
            raise ToolError(for_person(
                f"connection {conn.name!r} logs in as a role that can run programs or write files on "
                "the server (superuser, pg_execute_server_program or pg_write_server_files); a read-only "
                "transaction does not stop COPY ... TO PROGRAM, so db_query refuses it. Configure a role "
                "without those rights (e.g. one granted pg_read_all_data), or put the connection in write "
                "mode and use db_execute, which asks for approval.",
                N_("The connection {connection} logs in as a role that can run programs or write files on the "
                   "server, which a read-only query cannot hold back, so nothing was run. Give the connection a "
                   "role without those rights, or put it in write mode (its changes then ask for your approval)."),
                connection=quoted_later(conn.name)), kind=ErrorKind.BUSINESS)
        transaction = pg.transaction(readonly=readonly)
        await transaction.start()
        try:
            await pg.execute(f"SET LOCAL statement_timeout = {int(timeout_seconds * 1000)}")
            # Takes the snapshot: from now on SET TRANSACTION READ WRITE is refused.
            await pg.fetchval("SELECT 1")
            result = await _fetch_capped(pg, sql, max_rows, readonly)
        except BaseException:
            with contextlib.suppress(Exception):
                await transaction.rollback()
            raise
        if readonly:
            await transaction.rollback()
        else:
            await transaction.commit()
        result.elapsed_ms = (time.monotonic() - started) * 1000
        return result
    finally:
        await _close(pg)


async def list_tables(conn: DatabaseConnection, password: str | None, table: str | None, *,
                      timeout_seconds: float) -> list[TableInfo]:
    """Tables, views and their columns outside the system schemas (our own fixed query)."""

    async def run() -> list[TableInfo]:
        pg = await _connect(conn, password)
        try:
            async with pg.transaction(readonly=True):
                await pg.execute(f"SET LOCAL statement_timeout = {int(timeout_seconds * 1000)}")
                records = await pg.fetch(_SCHEMA_QUERY, table)
        finally:
            await _close(pg)
        tables: dict[tuple[str, str], TableInfo] = {}
        for schema, name, kind, col, col_type, notnull, pk in records:
            key = (schema, name)
            info = tables.get(key) or TableInfo(schema, name, _RELKINDS.get(kind, kind), ())
            column = TableColumn(col, col_type, nullable=not notnull, primary_key=pk)
            tables[key] = TableInfo(schema, name, info.kind, (*info.columns, column))
        return list(tables.values())

    try:
        return await asyncio.wait_for(run(), timeout_seconds + CLIENT_GRACE_SECONDS + CONNECT_TIMEOUT_SECONDS)
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
            raise
        raise map_error(exc, timeout_seconds) from exc
