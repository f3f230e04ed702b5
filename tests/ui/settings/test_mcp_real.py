"""The MCP page and first-start approval against the real MCP manager and a real server
(``mcp-server-time`` from PyPI, over stdio; ``hostile_http_server.py`` over SSE on loopback)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.scope import Scope
from echo_desk.mcp import McpManager
from echo_desk.mcp.config import parse_server
from echo_desk.store.paths import config_dir
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.mcp_page import McpPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.mcp.test_hostile_http import HOSTILE_HTTP_SERVER
from tests.ui.conftest import next_emission, until, within

SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))


@pytest.mark.skipif(not Path(SERVER).exists(), reason="mcp-server-time is not installed")
def test_first_start_is_approved_in_a_dialog_and_the_tools_reach_the_catalog(qtbot, qloop, builtin_runtime):
    (config_dir() / "mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": SERVER, "args": []}}}))
    host = QtHost()

    async def scenario():
        opened = next_emission(host.dialog_opened)
        await builtin_runtime.attach_mcp(host, wait=False)
        dialog = await within(opened, 30)
        shown = dialog.details.toPlainText()
        registered = asyncio.get_running_loop().create_future()
        builtin_runtime.mcp.subscribe(lambda e: None if e.kind != "tools" else qloop.call_soon_threadsafe(
            lambda: registered.done() or registered.set_result(True)))
        dialog.allow.click()
        await within(registered, 30)
        # The app's own path for a call: the dispatcher on the Qt loop awaits the MCP adapter
        # there (no tool worker), the session answers on the manager's thread.
        call = ToolCall(id="t1", name="time__get_current_time", arguments=json.dumps({"timezone": "UTC"}))
        approver = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
        envelope = await within(builtin_runtime.dispatcher.execute_tool(call, Scope(label="chat"), approver), 30)
        assert envelope.ok, envelope.error
        assert str(datetime.now(UTC).year) in envelope.content and approver.requests[0].source == "mcp:time"
        return shown

    try:
        shown = qloop.run_until_complete(scenario())
        assert SERVER in shown
        settings = SettingsDialog(CatalogBackend(builtin_runtime.settings, builtin_runtime),
                                  mcp_page=McpPage(builtin_runtime.mcp, host, str(config_dir() / "mcp.json")))
        qtbot.addWidget(settings)
        tools = settings.tools
        assert {"time__get_current_time", "time__convert_time"} <= set(tools.model.tool_names())
        group = tools.model.itemFromIndex(tools.model.group_index("mcp:time"))
        assert group.text().startswith("MCP server: time")
        page = settings.mcp
        assert page.servers.topLevelItem(0).text(2) == "Connected"
        assert "time__get_current_time" in page.details.toPlainText()
        settings.close()
    finally:
        qloop.run_until_complete(builtin_runtime.close_mcp())


def test_a_server_that_goes_away_between_calls_leaves_connected_on_the_page(qtbot, qloop, settings_store, tmp_path):
    # Before: the row said "Connected" until the next call to the server failed.
    proc = subprocess.Popen([sys.executable, "-S", str(HOSTILE_HTTP_SERVER)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    url = f"http://127.0.0.1:{int(proc.stdout.readline())}/sse"
    manager = McpManager(settings_store, registry=ToolRegistry(),
                         servers={"h": parse_server("h", {"type": "sse", "url": url})})
    start = manager.start_request("h")
    assert start is not None
    manager.approve_start("h", start.fingerprint)
    page = McpPage(manager, QtHost(), str(tmp_path / "mcp.json"))
    qtbot.addWidget(page)

    async def scenario() -> None:
        await within(manager.start("h"), 30)
        await until(lambda: page.servers.topLevelItem(0).text(2) == "Connected", 10)
        proc.kill()
        proc.wait(10)
        await until(lambda: page.servers.topLevelItem(0).text(2) == "Error", 30)

    try:
        qloop.run_until_complete(scenario())
        assert "the server closed the connection" in page.details.toPlainText()
    finally:
        page.close_page()
        proc.kill()
        proc.wait(10)
        qloop.run_until_complete(manager.aclose())
