"""The official MCP Python SDK client, over stdio, through ``echo-desk gateway`` to the app."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from echo_desk.agent.host import ApprovalChoice
from tests.mcp.helpers import wait_until

from .conftest import ASKS, AUTO, App, allow_builtins, gateway_command, needs_everything, needs_time

pytestmark = [needs_time, needs_everything]


def client_for(name: str, env: dict[str, str], cwd: Path | None = None, **options: Any) -> Client:
    command = gateway_command(name)
    return Client(StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd), **options)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def test_lists_the_mcp_servers_tools_and_no_builtins_by_default(app: App, gateway_env: dict[str, str]) -> None:
    async with client_for("cursor", gateway_env) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert AUTO in names and ASKS in names
    assert not names & {"read_file", "write_file", "run_command", "db_query"}  # built-ins: off for a new client
    profile = app.runtime.settings.current.gateway.clients["cursor"]  # made on the first connection
    assert profile.builtins is False and profile.first_seen > 0


async def test_builtins_switched_on_for_one_client_only(app: App, gateway_env: dict[str, str], short_dir: Path) -> None:
    allow_builtins(app.runtime.settings, "zed")
    async with client_for("zed", gateway_env) as zed, client_for("cursor", gateway_env) as cursor:
        zed_names = {t.name for t in (await zed.list_tools()).tools}
        cursor_names = {t.name for t in (await cursor.list_tools()).tools}
        refused = await cursor.call_tool("read_file", {"path": str(short_dir / "gw.sock")})
    assert {"read_file", "write_file", "run_command"} <= zed_names
    assert "db_execute" not in zed_names  # database tools read-only unless switched on
    assert not {"ask_user", "update_todos", "delegate"} & zed_names  # only meaningful in Echo Desk's chat
    assert "read_file" not in cursor_names
    assert refused.is_error and "was not granted" in text_of(refused)  # calling it anyway is refused


async def test_an_auto_allowed_call_runs_and_is_audited_with_the_clients_name(
        app: App, gateway_env: dict[str, str]) -> None:
    async with client_for("cursor", gateway_env) as client:
        result = await client.call_tool(AUTO, {"timezone": "UTC"})
    assert not result.is_error
    assert '"timezone": "UTC"' in text_of(result)
    assert result.structured_content and result.structured_content["timezone"] == "UTC"
    assert app.person.requests == []  # nobody was asked
    row = app.audit(tool=AUTO)[0]
    assert row["client"] == "cursor" and row["scope_chain"] == ["Cursor"] and row["decision"] == "auto"


async def test_an_approved_call_waits_for_the_person_with_progress(app: App, gateway_env: dict[str, str]) -> None:
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with client_for("claude-code", gateway_env) as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "hi there"}, progress_callback=on_progress))
        request = await app.person.asked()
        assert request.client == "claude-code" and request.tool_name == ASKS
        assert request.arguments == {"message": "hi there"}
        # The keep-alive (0.2 s here) keeps coming while the person reads.
        await wait_until(lambda: len(progress) >= 3, 10, "progress notifications")
        app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        result = await asyncio.wait_for(call, 30)
    assert not result.is_error and "hi there" in text_of(result)
    assert all("approve" in p for p in progress)
    row = app.audit(tool=ASKS)[0]
    assert (row["client"], row["decision"], row["ok"]) == ("claude-code", "allowed", True)


async def test_a_denied_call_is_an_error_result_with_the_persons_message(app: App, gateway_env: dict[str, str]) -> None:
    async with client_for("cursor", gateway_env) as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "x"}))
        app.person.answer(await app.person.asked(), ApprovalChoice.DENY)
        result = await asyncio.wait_for(call, 30)
    assert result.is_error
    assert "denied" in text_of(result) and "not now" in text_of(result)
    row = app.audit(tool=ASKS)[0]
    assert (row["decision"], row["error_kind"], row["client"]) == ("denied", "rejected", "cursor")


async def test_a_call_the_client_cancels_is_withdrawn_and_audited_as_cancelled(
        app: App, gateway_env: dict[str, str]) -> None:
    async with client_for("cursor", gateway_env) as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "x"}))
        await app.person.asked()
        call.cancel()  # the SDK sends notifications/cancelled
        await app.person.withdrawn_count(1)
        # The connection goes on: the next call works.
        assert not (await client.call_tool(AUTO, {"timezone": "UTC"})).is_error
    row = app.audit(tool=ASKS)[0]
    assert (row["error_kind"], row["ok"], row["client"]) == ("cancelled", False, "cursor")
    # The person was asked: the record says so rather than "stopped before approval".
    assert row["decision"] == "withdrawn"


async def test_a_client_that_goes_away_withdraws_its_waiting_call(app: App, gateway_env: dict[str, str]) -> None:
    client = client_for("goose", gateway_env)
    await client.__aenter__()
    call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "x"}))
    await app.person.asked()
    call.cancel()
    await client.__aexit__(None, None, None)  # the gateway's stdin closes; it ends; the socket closes
    await app.person.withdrawn_count(1)
    await wait_until(lambda: app.audit(tool=ASKS), 10, "the audit record")
    assert [(r["error_kind"], r["decision"]) for r in app.audit(tool=ASKS)] == [("cancelled", "withdrawn")]


async def test_two_clients_at_once_each_with_its_own_name(app: App, gateway_env: dict[str, str]) -> None:
    async with client_for("cursor", gateway_env) as cursor, client_for("vscode", gateway_env) as vscode:
        first = asyncio.ensure_future(cursor.call_tool(ASKS, {"message": "from cursor"}))
        second = asyncio.ensure_future(vscode.call_tool(ASKS, {"message": "from vscode"}))
        await app.person.asked(2)
        by_client = {r.client: r for r in app.person.requests}
        assert set(by_client) == {"cursor", "vscode"}
        assert {c["client"] for c in app.service.clients()} == {"cursor", "vscode"}
        autos = await asyncio.gather(*(c.call_tool(AUTO, {"timezone": "UTC"}) for c in (cursor, vscode)))
        assert not any(r.is_error for r in autos)  # the waiting calls block nothing
        app.person.answer(by_client["vscode"], ApprovalChoice.ALLOW_ONCE)
        app.person.answer(by_client["cursor"], ApprovalChoice.DENY)
        one, two = await asyncio.wait_for(asyncio.gather(first, second), 30)
    assert one.is_error and not two.is_error and "from vscode" in text_of(two)


async def test_the_app_not_running_answers_a_person_needing_call_at_once(
        gateway_env: dict[str, str], servers: dict[str, Any]) -> None:
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore, ToolPolicy

    from .conftest import approve_servers

    store = SettingsStore.in_dir(config_dir())
    approve_servers(store, servers)
    store.set_tool(AUTO, policy=ToolPolicy.ALWAYS)
    async with client_for("cursor", gateway_env) as client:
        async with asyncio.timeout(60):
            # A list answers without a server still starting 5 s after it was asked for; each
            # list waits for them again, as long.
            while AUTO not in {t.name for t in (await client.list_tools()).tools}:
                pass
        auto = await client.call_tool(AUTO, {"timezone": "UTC"})  # what the rules allow runs without the app
        started = time.monotonic()
        asks = await client.call_tool(ASKS, {"message": "x"})
        elapsed = time.monotonic() - started
    assert not auto.is_error
    assert asks.is_error and "Echo Desk is not running" in text_of(asks) and "open Echo Desk" in text_of(asks).replace(
        "Open", "open")
    assert elapsed < 5, f"it waited {elapsed:.1f} s"


async def test_one_client_cannot_bury_the_person_or_another_client_under_its_dialogs(
        app: App, gateway_env: dict[str, str]) -> None:
    # Every call of a client that needs the person opened a window brought to the front with a
    # notification, all at once: 12 calls, 12 windows over whatever the person was doing, and
    # another app's request under them. A client has at most a few in front of the person at once;
    # the rest wait their turn (still told "waiting for the person"), and another client's comes at once.
    from echo_desk.gateway.service import APPROVALS_AT_ONCE

    async with client_for("cursor", gateway_env) as cursor, client_for("vscode", gateway_env) as vscode:
        flood = [asyncio.ensure_future(cursor.call_tool(ASKS, {"message": f"flood {i}"})) for i in range(12)]
        await app.person.asked(APPROVALS_AT_ONCE)
        await asyncio.sleep(1.0)  # the others had every chance to reach the person
        assert len(app.person.requests) == APPROVALS_AT_ONCE, "one client's calls opened a window each, at once"
        other = asyncio.ensure_future(vscode.call_tool(ASKS, {"message": "from vscode"}))
        theirs = await app.person.asked(APPROVALS_AT_ONCE + 1)
        assert theirs.client == "vscode"
        app.person.answer(theirs, ApprovalChoice.ALLOW_ONCE)
        assert not (await asyncio.wait_for(other, 30)).is_error
        answered = 0
        while answered < len(flood):  # each answer lets the next one in, never more than the bound
            waiting = [r for r in app.person.requests if r.client == "cursor"][answered:]
            assert 0 < len(waiting) <= APPROVALS_AT_ONCE
            app.person.answer(waiting[0], ApprovalChoice.DENY)
            answered += 1
            if answered < len(flood):
                await app.person.asked(1 + min(answered + APPROVALS_AT_ONCE, len(flood)))
        results = await asyncio.wait_for(asyncio.gather(*flood), 60)
        assert all(r.is_error for r in results)
    assert len([r for r in app.audit(client="cursor") if r["decision"] == "denied"]) == len(flood)


async def test_a_relayed_call_under_way_when_the_app_quits_is_answered_so_and_audited(
        app: App, gateway_env: dict[str, str]) -> None:
    # Relaying (no handoff), the quit withdrew the call and said nothing: the gateway saw only
    # its connection end ("Echo Desk closed the connection"), not that Echo Desk quit.
    async with client_for("cursor", {**gateway_env, "ECHO_DESK_GATEWAY_HANDOFF": "0"}) as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "the app quits"}))
        await app.person.asked()
        await app.service.shutdown()
        result = await asyncio.wait_for(call, 10)
    assert result.is_error and "Echo Desk quit while this call of everything__echo ran" in text_of(result)
    row = app.audit(tool=ASKS, limit=1)[0]
    assert row["client"] == "cursor" and row["error_kind"] == "cancelled" and row["decision"] == "withdrawn"
