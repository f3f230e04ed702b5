"""Clients nobody here wrote, over stdio: the TypeScript SDK's client (with its default request
timeout) and the MCP Inspector's command-line mode."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from echo_desk.agent.host import ApprovalChoice
from tests.mcp.helpers import wait_until

from .conftest import (
    ASKS,
    AUTO,
    App,
    approve_servers,
    gateway_command,
    needs_everything,
    needs_node_clients,
    needs_time,
)
from .node_clients import TsClient, gateway_script, run_inspector

pytestmark = [needs_time, needs_everything, needs_node_clients]


def result_text(answer: dict[str, Any]) -> str:
    result = answer["result"]
    return "\n".join(block.get("text", "") for block in result["content"])


async def ts_stdio(client: str, env: dict[str, str]) -> TsClient:
    return await TsClient.start("stdio", json.dumps(gateway_command(client)), env=env)


async def test_ts_sdk_lists_and_makes_an_auto_allowed_call(app: App, gateway_env: dict[str, str]) -> None:
    client = await ts_stdio("vscode", gateway_env)
    try:
        listed = await client.request("list")
        assert AUTO in listed["result"] and ASKS in listed["result"]
        answer = await client.request("call", name=AUTO, arguments={"timezone": "UTC"})
    finally:
        await client.close()
    assert answer["result"]["isError"] is False, answer
    assert answer["result"]["structuredContent"]["timezone"] == "UTC"
    assert app.audit(tool=AUTO)[0]["client"] == "vscode"


async def test_ts_sdk_approved_denied_and_progress_keeps_its_timer_alive(app: App, gateway_env: dict[str, str]) -> None:
    client = await ts_stdio("cursor", gateway_env)
    try:
        # A 1.5 s timeout that progress resets: the person takes longer than that, the call lives.
        approved = client.send("call", name=ASKS, arguments={"message": "yes please"}, progress=True, timeout=1500)
        request = await app.person.asked()
        # ~2.4 s of keep-alives at 0.2 s: longer than the call's own timeout.
        await wait_until(lambda: len(client.progress.get(approved, [])) >= 12, 20, "progress notifications")
        app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        first = await client.answer(approved)
        denied = client.send("call", name=ASKS, arguments={"message": "no"})
        app.person.answer(await app.person.asked(2), ApprovalChoice.DENY)
        second = await client.answer(denied)
    finally:
        await client.close()
    assert "error" not in first, first
    assert first["result"]["isError"] is False and "yes please" in result_text(first)
    assert second["result"]["isError"] is True and "denied" in result_text(second)


async def test_ts_sdk_without_progress_times_out_and_the_dialog_is_withdrawn(
        app: App, gateway_env: dict[str, str]) -> None:
    client = await ts_stdio("cursor", gateway_env)
    try:
        # No progress token: the SDK's own timer (shortened here from its 60 s default) runs out,
        # it sends notifications/cancelled, and Echo Desk withdraws the request.
        waiting = client.send("call", name=ASKS, arguments={"message": "slow"}, timeout=1000)
        await app.person.asked()
        answer = await client.answer(waiting)
        await app.person.withdrawn_count(1)
    finally:
        await client.close()
    assert "timed out" in answer["error"].lower() or "timeout" in answer["error"].lower(), answer
    row = await app.withdrawn_record(ASKS)
    assert row["error_kind"] == "cancelled" and row["client"] == "cursor"


async def test_ts_sdk_abort_withdraws_the_waiting_call(app: App, gateway_env: dict[str, str]) -> None:
    client = await ts_stdio("zed", gateway_env)
    try:
        waiting = client.send("call", name=ASKS, arguments={"message": "never mind"})
        await app.person.asked()
        client.abort(waiting)
        await app.person.withdrawn_count(1)
        answer = await client.answer(waiting)
    finally:
        await client.close()
    assert "error" in answer
    assert (await app.withdrawn_record(ASKS))["error_kind"] == "cancelled"


async def test_ts_sdk_when_the_app_is_not_running(gateway_env: dict[str, str], servers: dict[str, Any]) -> None:
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore

    approve_servers(SettingsStore.in_dir(config_dir()), servers)
    client = await ts_stdio("cursor", gateway_env)
    try:
        async with asyncio.timeout(60):
            # A list answers without a server still starting 5 s after it was asked for (the
            # gateway's own engine starting among them); each list waits for them again, as long.
            while ASKS not in (await client.request("list"))["result"]:
                pass
        started = time.monotonic()
        answer = await client.request("call", name=ASKS, arguments={"message": "x"})
        elapsed = time.monotonic() - started
    finally:
        await client.close()
    assert answer["result"]["isError"] is True and "Echo Desk is not running" in result_text(answer)
    assert elapsed < 5


async def test_inspector_cli_lists_and_calls(app: App, gateway_env: dict[str, str], short_dir: Path) -> None:
    script = gateway_script(short_dir, "inspector", gateway_env)
    code, out, err = await run_inspector([str(script), "--method", "tools/list"], gateway_env, short_dir)
    assert code == 0, err
    names = {tool["name"] for tool in json.loads(out)["tools"]}
    assert AUTO in names and ASKS in names
    code, out, err = await run_inspector([str(script), "--method", "tools/call", "--tool-name", AUTO,
                                          "--tool-arg", "timezone=UTC"], gateway_env, short_dir)
    assert code == 0, err
    result = json.loads(out)
    assert result["isError"] is False and result["structuredContent"]["timezone"] == "UTC"
    assert app.audit(tool=AUTO)[0]["client"] == "inspector"
