"""The parts that need no server: DSN redaction, JSON-safe values, the text table, the live
connection enum, readiness and its cache."""

from __future__ import annotations

import datetime as dt
import decimal
import threading
import time
import uuid

import pytest
from db_pgserver import free_port

from echo_desk.builtins.database import DbExecuteTool, DbQueryTool, DbSchemaTool, database_tools
from echo_desk.builtins.database.connections import (
    ReadinessCache,
    needs_password,
    postgres_endpoint,
    probe,
    redact_dsn,
    sqlite_path,
)
from echo_desk.builtins.database.formatting import Column, QueryResult, text_table
from echo_desk.builtins.database.values import iso_duration, json_safe
from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools import ErrorKind, RiskLevel, ToolExecutionContext
from echo_desk.tools.secrets import secret_store


@pytest.mark.parametrize(("dsn", "shown"), [
    ("postgresql://me:s3cret@db.example:5433/sales", "postgresql://me@db.example:5433/sales"),
    ("postgresql://me@db/sales?password=s3cret&sslmode=require", "postgresql://me@db/sales?sslmode=require"),
    ("postgresql://db/sales", "postgresql://db/sales"),
    ("host=db user=me password='a b' dbname=x", "host=db user=me password=*** dbname=x"),
])
def test_redact_dsn_never_shows_a_password(dsn: str, shown: str) -> None:
    assert redact_dsn(dsn) == shown


def test_endpoints_and_when_a_password_is_needed() -> None:
    assert postgres_endpoint("postgresql://me@[::1]:6000/x") == postgres_endpoint("postgresql://me@[::1]:6000/x")
    assert postgres_endpoint("postgresql://me@[::1]:6000/x").port == 6000
    assert postgres_endpoint("postgresql:///x?host=/run/postgresql").is_socket
    assert postgres_endpoint("postgresql://h/x").port == 5432
    tcp = DatabaseConnection(name="a", kind="postgres", dsn="postgresql://me@h/x")
    sock = DatabaseConnection(name="b", kind="postgres", dsn="postgresql://me@/x?host=/run/postgresql")
    lite = DatabaseConnection(name="c", kind="sqlite", dsn="a.db")
    assert needs_password(tcp) and not needs_password(sock) and not needs_password(lite)
    assert sqlite_path("sqlite:///data/a.db") == "data/a.db" and sqlite_path("file:/x/a.db?mode=ro") == "/x/a.db"


def test_json_safe_values() -> None:
    assert json_safe(decimal.Decimal("1.10")) == "1.10"
    assert json_safe(dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)) == "2024-01-02T03:04:05+00:00"
    assert json_safe(b"\x00\x01") == "\\x0001"
    assert json_safe(b"x" * 100).endswith("… (100 bytes)")
    assert json_safe(float("inf")) == "inf"
    assert json_safe(uuid.UUID(int=1)) == "00000000-0000-0000-0000-000000000001"
    assert json_safe({"a": (1, decimal.Decimal("2"))}) == {"a": [1, "2"]}
    assert iso_duration(dt.timedelta(0)) == "PT0S"
    assert iso_duration(-dt.timedelta(minutes=90)) == "-PT1H30M"
    assert iso_duration(dt.timedelta(days=2, microseconds=500_000)) == "P2DT0.5S"


def test_text_table_is_compact_and_cut() -> None:
    table = text_table(QueryResult([Column("id", "int4"), Column("note", "text")],
                                   [[1, "x" * 100], [2, None]], more_rows=5))
    lines = table.splitlines()
    assert lines[0] == "id | note" and lines[1].startswith("---+-")
    assert lines[2].endswith("…") and len(lines[2]) == len("1  | ") + 60
    assert lines[3] == "2  | NULL"
    assert "(2 rows)" in table and "5 more rows not shown" in table


def test_a_wide_result_is_cut_for_the_model_but_not_for_the_grid() -> None:
    rows = [[i, "y" * 200] for i in range(1000)]
    result = QueryResult([Column("id", "int4"), Column("wide", "text")], rows)
    table = text_table(result)
    assert len(table) < 21_000
    assert "[table cut after " in table and "of 1000 rows" in table and "(1000 rows)" in table


def test_connection_enum_follows_the_settings() -> None:
    store = SettingsStore.in_memory(Settings())
    query, schema, execute = database_tools(store)
    assert isinstance(query, DbQueryTool) and isinstance(schema, DbSchemaTool) and isinstance(execute, DbExecuteTool)
    assert (query.risk_level, schema.risk_level, execute.risk_level) == (RiskLevel.READ, RiskLevel.READ, RiskLevel.EXEC)
    assert query.capabilities == {"database.read"} and execute.capabilities == {"database.write"}
    # The class-level schema (docs, catalog) has no enum; so does an object with nothing configured.
    assert "enum" not in DbQueryTool.parameters["properties"]["connection"]
    assert not query.is_ready() and query.readiness_detail() == "no database configured"
    assert execute.readiness_detail() == "no connection in write mode"
    store.update(lambda s: setattr(s, "databases", [
        DatabaseConnection(name="ro", kind="sqlite", dsn="a.db"),
        DatabaseConnection(name="rw", kind="sqlite", dsn="b.db", write_mode=True),
    ]))
    assert query.parameters["properties"]["connection"]["enum"] == ["ro", "rw"]
    assert execute.parameters["properties"]["connection"]["enum"] == ["rw"]
    assert "enum" not in DbQueryTool.parameters["properties"]["connection"]  # not mutated
    assert query.is_ready() and execute.is_ready()


async def test_an_unknown_connection_is_a_validation_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = SettingsStore.in_memory(Settings(databases=[DatabaseConnection(name="ro", kind="sqlite", dsn="a.db")]))
    ctx = ToolExecutionContext(call_id="c", tool_name="db_query", scope_id="s", workspace_roots=(tmp_path,))
    result = await DbQueryTool(lambda: store.current).execute({"connection": "gone", "sql": "SELECT 1"}, ctx)
    assert result.error_kind is ErrorKind.VALIDATION and "configured: ro" in result.error


def test_readiness_reports_password_missing_and_connection_refused() -> None:
    dead = DatabaseConnection(name="dead", kind="postgres", dsn=f"postgresql://me@127.0.0.1:{free_port()}/x")
    assert probe(dead) == "password missing"
    secret_store().set("database.dead.password", "pw")
    assert probe(dead) == "connection refused"
    missing_file = DatabaseConnection(name="f", kind="sqlite", dsn="/nonexistent/echo-desk.db")
    assert probe(missing_file) == "database file not found"


def test_readiness_cache_answers_fast_and_reuses_results() -> None:
    release = threading.Event()
    calls: list[str] = []

    def slow_probe(conn: DatabaseConnection) -> str:
        calls.append(conn.name)
        release.wait(10)
        return "connection refused"

    cache = ReadinessCache(slow_probe, ttl=60, wait=0.01)
    conn = DatabaseConnection(name="lite", kind="sqlite", dsn="a.db")
    assert cache.detail(conn) == ""  # the probe hangs: answer optimistically, do not block
    release.set()
    deadline = threading.Event()
    for _ in range(500):  # wait on the condition (the background probe finishing), bounded
        if cache.detail(conn) == "connection refused":
            break
        deadline.wait(0.01)
    assert cache.detail(conn) == "connection refused"
    assert calls == ["lite"]  # one probe, then the cached answer
    cache.invalidate()
    cache.detail(conn)
    assert len(calls) == 2


def test_a_stale_answer_is_returned_at_once_while_the_refresh_runs() -> None:
    release = threading.Event()
    answers = iter(["connection refused", ""])

    def probe_fn(conn: DatabaseConnection) -> str:
        answer = next(answers)
        if answer == "":
            release.wait(10)  # the second probe hangs, as an unreachable host would
        return answer

    cache = ReadinessCache(probe_fn, ttl=0.0, wait=5.0)
    conn = DatabaseConnection(name="pg", kind="sqlite", dsn="a.db")
    assert cache.detail(conn) == "connection refused"  # the first answer is waited for
    started = time.monotonic()
    assert cache.detail(conn) == "connection refused"  # stale: returned, not waited on
    assert time.monotonic() - started < 0.5
    release.set()
