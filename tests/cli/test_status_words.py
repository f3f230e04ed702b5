"""The command line says a tool's, a server tool's and a client's standing in the words and case
of Settings (the catalog, MCP servers, Connected apps), in both languages; ``--json`` keeps the
engine's values. Before: "builtin Read yes runs … no closed (no database configured)", an MCP
tool "ready"/"BLOCKED" with its flags as "[changed: …]", a client as its key ("cursor")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.cli.mcp import _print_statuses
from echo_desk.cli.with_runtime import _tools_list
from echo_desk.i18n import N_, for_person
from echo_desk.mcp.status import FlagKind, McpToolInfo, ServerState, ServerStatus, ToolFlag
from echo_desk.runtime import Runtime
from echo_desk.tools import ErrorKind


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    made = Runtime.create()
    yield made
    made.close()


def _cells(out: str, name: str) -> list[str]:
    line = next(row for row in out.splitlines() if row.startswith(f"{name} "))
    return line.split(None, 5)


def test_tools_list_speaks_as_the_catalog_in_english(runtime, capsys) -> None:
    _tools_list(runtime, as_json=False)
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["NAME", "SOURCE", "RISK", "ENABLED", "APPROVAL", "RULES", "STATUS"]
    assert _cells(out, "read_file") == ["read_file", "Built-in", "Read", "Yes", "Default", "(Always allow) 0     Ready"]
    db_query = next(row for row in out.splitlines() if row.startswith("db_query "))
    assert db_query.endswith("Not ready: no database configured"), db_query
    write_file = next(row for row in out.splitlines() if row.startswith("write_file "))
    assert "Default (Ask)" in write_file

    _tools_list(runtime, as_json=True)  # for scripts: the engine's values, as they were
    row = next(t for t in json.loads(capsys.readouterr().out)["tools"] if t["name"] == "db_query")
    assert (row["source"], row["risk"], row["enabled"], row["default"], row["ready"], row["breaker"]) == (
        "builtin", "read", True, "runs", False, "closed")
    assert row["readiness"] == "no database configured"


def test_tools_list_speaks_as_the_catalog_in_chinese(runtime, chinese, capsys) -> None:
    runtime.breakers.record("read_file", ErrorKind.INTERNAL, "boom")
    _tools_list(runtime, as_json=False)
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["名称", "来源", "风险", "启用", "审批", "规则", "状态"]
    read_file = next(row for row in out.splitlines() if row.startswith("read_file "))
    assert read_file.split() == ["read_file", "内置", "读取", "是", "默认（始终允许）", "0", "最近失败", "1", "次"], read_file
    db_query = next(row for row in out.splitlines() if row.startswith("db_query "))
    assert db_query.endswith("未就绪：未配置数据库"), db_query


def _server(tool_ready: bool) -> ServerStatus:
    tool = McpToolInfo(
        registry_name="memory__read_graph", original_name="read_graph", title="", description="", annotations={},
        ready=tool_ready, readiness="" if tool_ready else for_person(
            "the server changed this tool since you approved it: description",
            N_("the server changed this tool since you approved it: {changes}"), changes=("description",)),
        flags=() if tool_ready else (ToolFlag(kind=FlagKind.CHANGED, detail="description"),))
    return ServerStatus(name="memory", state=ServerState.CONNECTED, transport="stdio", tools=(tool,))


@pytest.mark.parametrize(("language", "ready", "blocked"), [
    ("en", "Ready", "Not ready: the server changed this tool since you approved it: description (Changed: description)"),
    ("zh_CN", "就绪", "未就绪：自你批准以来，服务器更改了这个工具：description（有变化：description）"),
])
def test_mcp_list_says_a_tool_as_the_catalog_does(language, ready, blocked, capsys) -> None:
    from echo_desk.i18n import current_language, set_language

    before = current_language()
    set_language(language)
    try:
        _print_statuses([_server(True)])
        assert capsys.readouterr().out.splitlines()[1].split(None, 1)[1] == ready
        _print_statuses([_server(False)])
        assert capsys.readouterr().out.splitlines()[1].split(None, 1)[1] == blocked
    finally:
        set_language(before)


def test_gateway_status_names_a_client_as_settings_does(monkeypatch, capsys, chinese) -> None:
    from echo_desk.cli import gateway
    from echo_desk.gateway import relay

    async def answer(_path: Path) -> dict[str, object]:
        return {"app": "Echo Desk", "clients": [{"client": "cursor", "transport": "stdio", "running": 1,
                                                  "waiting_for_person": 0}]}

    monkeypatch.setattr(relay, "app_status", answer)
    assert gateway._status(as_json=False) == 0
    client_line = capsys.readouterr().out.splitlines()[1]
    assert client_line.split()[0] == "Cursor", client_line
    assert gateway._status(as_json=True) == 0
    assert json.loads(capsys.readouterr().out)["clients"][0]["client"] == "cursor"
