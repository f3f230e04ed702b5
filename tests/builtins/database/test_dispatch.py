"""The database tools through the real pipeline: Runtime → Dispatcher.execute_tool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from db_support import PgInfo

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ErrorKind, RiskLevel


@pytest.fixture
def runtime(pg_settings: SettingsStore, tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=pg_settings, data_dir=tmp_path / "data", with_plugins=False)
    yield rt
    rt.close()


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=f"call_{name}", name=name, arguments=json.dumps(arguments))


async def test_db_query_runs_without_approval_and_the_card_gets_the_rows(runtime: Runtime, tmp_path: Path) -> None:
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    envelope = await runtime.dispatcher.execute_tool(
        call("db_query", connection="shop", sql="SELECT name FROM items ORDER BY id"),
        Scope(label="chat", workspace_roots=(tmp_path,)), host)
    assert envelope.ok, envelope.error
    assert host.requests == []  # read risk: no dialog
    assert envelope.metadata["rows"] == [["apple"], ["pear"], ["plum"]]
    assert "apple" in envelope.to_json()["content"]


async def test_the_schema_enum_and_validation(runtime: Runtime, tmp_path: Path) -> None:
    definitions = {d.name: d for d in runtime.schema_factory.definitions()}
    assert definitions["db_query"].parameters["properties"]["connection"]["enum"] == ["shop", "shop_rw", "shop_admin"]
    assert definitions["db_execute"].parameters["properties"]["connection"]["enum"] == ["shop_rw"]
    envelope = await runtime.dispatcher.execute_tool(
        call("db_query", connection="elsewhere", sql="SELECT 1"),
        Scope(label="chat", workspace_roots=(tmp_path,)), ScriptedHost())
    assert envelope.error_kind is ErrorKind.VALIDATION


@pytest.mark.parametrize("choice", [ApprovalChoice.ALLOW_ONCE, ApprovalChoice.DENY])
async def test_write_mode_asks_with_the_database_and_the_full_sql(
        runtime: Runtime, pg: PgInfo, tmp_path: Path, choice: ApprovalChoice) -> None:
    sql = "UPDATE items SET price = price + 1 WHERE name = 'plum'"
    host = ScriptedHost(choice=choice, message="not today")
    before = await pg.count("items WHERE price = 1.99")
    envelope = await runtime.dispatcher.execute_tool(
        call("db_execute", connection="shop_rw", sql=sql), Scope(label="chat", workspace_roots=(tmp_path,)), host)
    (request,) = host.requests
    assert request.risk is RiskLevel.EXEC
    assert [(t.kind, t.value) for t in request.targets] == [
        ("database", pg.dsn('writer')), ("other", sql)]
    assert "writer-Pw" not in json.dumps([t.value for t in request.targets])
    after = await pg.count("items WHERE price = 1.99")
    if choice is ApprovalChoice.ALLOW_ONCE:
        assert envelope.ok and "UPDATE 1" in envelope.content
        assert after == before + 1
        admin = await pg.admin()
        await admin.execute("UPDATE items SET price = 0.99 WHERE name = 'plum'")
        await admin.close()
    else:
        assert envelope.error_kind is ErrorKind.REJECTED and "not today" in envelope.error
        assert after == before


async def test_a_read_only_scope_gets_no_db_execute(runtime: Runtime, tmp_path: Path) -> None:
    scope = Scope(label="reviewer", workspace_roots=(tmp_path,), read_only=True)
    names = {d.name for d in runtime.schema_factory.definitions(scope)}
    assert {"db_query", "db_schema"} <= names and "db_execute" not in names
    envelope = await runtime.dispatcher.execute_tool(
        call("db_execute", connection="shop_rw", sql="DELETE FROM items"), scope, ScriptedHost())
    assert envelope.error_kind is ErrorKind.NOT_GRANTED


async def test_a_timeout_reaches_the_envelope_and_the_breaker(runtime: Runtime, tmp_path: Path) -> None:
    tool = runtime.registry.get("db_query")
    assert tool is not None
    tool.tool.statement_timeout = 0.3  # type: ignore[attr-defined]
    envelope = await runtime.dispatcher.execute_tool(
        call("db_query", connection="shop", sql="SELECT pg_sleep(10)"),
        Scope(label="chat", workspace_roots=(tmp_path,)), ScriptedHost())
    assert envelope.error_kind is ErrorKind.TIMEOUT
    assert runtime.breakers.status("db_query").consecutive_failures == 1
