"""What the model (and an MCP client's model) reads stays English in a Chinese session; the person
reads the same facts in Chinese. Before, a tool's readiness detail made with ``_()`` (the
database tools') and a text made with ``deferred`` (a pinned MCP tool's changes, the breaker's
"unknown") reached the model as Chinese while the words around them were English."""

from __future__ import annotations

import json
from pathlib import Path

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.model import ToolCall
from echo_desk.builtins.database import DbQueryTool
from echo_desk.builtins.database.connections import ReadinessCache
from echo_desk.gateway.results import to_mcp
from echo_desk.i18n import N_, deferred, for_model, for_person, said_by_tool, shown
from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools import ErrorKind
from tests.agent.fakes import make_engine


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _db_query(*connections: DatabaseConnection) -> DbQueryTool:
    store = SettingsStore.in_memory(Settings(databases=list(connections)))
    return DbQueryTool(lambda: store.current, readiness=ReadinessCache(lambda _conn: "connection refused", wait=5))


async def test_a_database_tool_not_ready_is_english_for_the_model_and_chinese_for_the_person(
        tmp_path: Path, scope, host, engines, chinese) -> None:
    tool = _db_query()
    dispatcher, factory, _settings = make_engine(tmp_path, tool)
    engines.append(dispatcher)

    reason = {a.name: a.reason for a in factory.availability(scope)}["db_query"]
    assert reason == "not ready: no database configured"
    env = await dispatcher.execute_tool(
        ToolCall(id="c1", name="db_query", arguments=json.dumps({"connection": "x", "sql": "SELECT 1"})), scope, host)
    assert env.error_kind is ErrorKind.DEPENDENCY
    model_reads, client_reads = env.to_json()["error"], to_mcp(env)["content"][0]["text"]
    assert model_reads == "tool 'db_query' is not ready: no database configured"
    assert client_reads == model_reads
    assert "未配置" in shown(env.error) and not _has_chinese(model_reads), shown(env.error)
    # The catalog's status column and echo-desk tools list read it in Chinese.
    assert _has_chinese(said_by_tool(tool, tool.readiness_detail()))


def test_each_failing_connection_is_english_for_the_model_and_chinese_for_the_person(chinese) -> None:
    tool = _db_query(DatabaseConnection(name="sales", kind="sqlite", dsn="a.db"),
                     DatabaseConnection(name="stock", kind="sqlite", dsn="b.db"))
    detail = tool.readiness_detail()
    assert for_model(detail) == "sales: connection refused; stock: connection refused"
    person = said_by_tool(tool, detail)
    assert "sales" in person and "stock" in person and "connection refused" not in person, person
    assert _has_chinese(person)


def test_a_deferred_text_reaches_the_model_as_its_english(chinese) -> None:
    said = deferred(N_("the definition changed"))
    assert _has_chinese(said) and for_model(said) == "the definition changed"
    nested = deferred(N_("{first} or {second}"), first=deferred(N_("the definition changed")), second="x")
    assert for_model(nested) == "the definition changed or x"
    # A for_person text is already the model's own words (not its person's sentence).
    assert for_model(for_person("tool 'x' is disabled in settings", N_("{name} is switched off in Settings › Tools."),
                                name="x")) == "tool 'x' is disabled in settings"
    env = Envelope.failure("t", "c", ErrorKind.BUSINESS, said)
    assert env.to_json()["error"] == "the definition changed" and shown(env.error) == said.again()
    assert to_mcp(env)["content"][0]["text"] == "the definition changed"
