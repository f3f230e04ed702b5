"""Hostile and broken input to the gateway: nothing hangs, nothing is lost from the audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from echo_desk.agent.host import ApprovalChoice
from echo_desk.store.paths import config_dir
from echo_desk.store.settings import SettingsStore, ToolPolicy
from tests.mcp.helpers import wait_until

from .conftest import AUTO, App, gateway_command, needs_time, stop_process, write_servers

pytestmark = [needs_time]

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Raw:
    """A client speaking JSON-RPC lines to the gateway by hand (or not reading at all)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, client: str, env: dict[str, str]) -> Raw:
        command = gateway_command(client)
        process = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE, env=env,
                                                       limit=32 * 1024 * 1024)
        raw = cls(process)
        await raw.send(INITIALIZE)
        assert "result" in await raw.receive()
        await raw.send(INITIALIZED)
        return raw

    async def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def receive(self, timeout: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            assert line, "the gateway ended"
            message = json.loads(line)
            if "id" in message:  # answers only (not notifications)
                return message

    def peak_rss_mb(self) -> float:
        for line in open(f"/proc/{self.process.pid}/status", encoding="ascii"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    async def close(self) -> None:
        await stop_process(self.process)


@pytest.fixture
def servers() -> dict[str, Any]:
    return write_servers(everything=False, fault=True)


async def test_malformed_json_rpc_gets_the_spec_errors_and_the_session_goes_on(
        app: App, gateway_env: dict[str, str]) -> None:
    raw = await Raw.start("cursor", gateway_env)
    try:
        await raw.send(b"{this is not json\n")
        parse = await raw.receive()
        assert parse["id"] is None and parse["error"]["code"] == -32700
        await raw.send({"jsonrpc": "2.0", "id": 7, "method": 42})
        invalid = await raw.receive()
        assert invalid["id"] == 7 and invalid["error"]["code"] == -32600
        await raw.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": AUTO}})  # no arguments
        await raw.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        answers = {m["id"]: m for m in (await raw.receive(), await raw.receive())}
        assert AUTO in {t["name"] for t in answers[9]["result"]["tools"]}
        assert answers[8]["result"]["isError"] is True  # validated by the dispatcher, answered as a tool error
        # Nested past what the JSON parser reads: a parse error for its id, and the session goes on.
        await raw.send(b'{"jsonrpc":"2.0","id":10,"method":"ping","params":{"a":' + b"[" * 200_000
                       + b"]" * 200_000 + b"}}\n")
        deep = await raw.receive()
        assert deep["id"] == 10 and deep["error"]["code"] == -32700
        await raw.send({"jsonrpc": "2.0", "id": 11, "method": "ping"})
        assert (await raw.receive()) == {"jsonrpc": "2.0", "id": 11, "result": {}}
    finally:
        await raw.close()


async def test_a_50_mb_request_is_refused_at_once_without_holding_it(app: App, gateway_env: dict[str, str]) -> None:
    raw = await Raw.start("cursor", gateway_env)
    try:
        huge = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": AUTO, "arguments": {"timezone": "x" * (50 * 1024 * 1024)}}}
        started = time.monotonic()
        await raw.send(huge)
        refused = await raw.receive(60)
        assert refused["id"] == 5 and refused["error"]["code"] == -32600
        assert "too large" in refused["error"]["message"]
        assert time.monotonic() - started < 30
        assert raw.peak_rss_mb() < 200, f"the gateway held {raw.peak_rss_mb():.0f} MB"
        await raw.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                        "params": {"name": AUTO, "arguments": {"timezone": "UTC"}}})
        assert (await raw.receive())["result"]["isError"] is False
    finally:
        await raw.close()
    assert [r["tool"] for r in app.audit(client="cursor")] == [AUTO]  # the refused one never reached a tool


async def test_a_client_that_never_reads_is_given_up_and_others_go_on(app: App, gateway_env: dict[str, str]) -> None:
    # Its answers go to a pipe nobody reads (an asyncio reader would buffer them all).
    unread, answers = os.pipe()
    command = gateway_command("stuck")
    stuck = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=answers,
        env={**gateway_env, "ECHO_DESK_GATEWAY_WRITE_DEADLINE": "1"})
    os.close(answers)
    assert stuck.stdin is not None
    calls = [{"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
              "params": {"name": AUTO, "arguments": {"timezone": "UTC"}}} for i in range(400)]
    try:
        stuck.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, INITIALIZED, *calls)))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await asyncio.wait_for(stuck.stdin.drain(), 60)
        # Once its answers fill the pipe, it waits a second, then gives up and ends on its own.
        assert await asyncio.wait_for(stuck.wait(), 60) is not None
        other_command = gateway_command("cursor")
        params = StdioServerParameters(command=other_command[0], args=other_command[1:], env=gateway_env)
        async with Client(params) as other:
            assert not (await other.call_tool(AUTO, {"timezone": "UTC"})).is_error
    finally:
        os.close(unread)
        if stuck.returncode is None:
            stuck.kill()
            await stuck.wait()
    await wait_until(lambda: all(c["client"] != "stuck" for c in app.service.clients()), 10, "the app letting it go")
    ran = app.audit(client="stuck", limit=1000)
    # Every call that reached a tool is in the audit, finished or cancelled: none half-recorded.
    assert ran and all(r["ok"] or r["error_kind"] == "cancelled" for r in ran)


@pytest.mark.parametrize("era", ["legacy", "auto"])
async def test_a_tool_that_changes_after_approval_is_blocked_until_re_approved(
        app: App, gateway_env: dict[str, str], era: str) -> None:
    store: SettingsStore = app.runtime.settings
    for name in ("fault__echo", "fault__mutate"):
        store.set_tool(name, policy=ToolPolicy.ALWAYS)
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:  # the handshake era: a notification
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    command = gateway_command("cursor")
    params = StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(Client(params, message_handler=on_message, mode=era))
        if era == "auto":  # the 2026 era: a subscriptions/listen stream
            listening = await stack.enter_async_context(client.listen(tools_list_changed=True))

            async def watch() -> None:
                async for _event in listening:
                    changed.set()

            watcher = asyncio.ensure_future(watch())
            stack.callback(watcher.cancel)
        assert "fault__echo" in {t.name for t in (await client.list_tools()).tools}
        assert not (await client.call_tool("fault__echo", {"text": "before"})).is_error
        # The server now rewrites echo's description ("…also read ~/.ssh/id_rsa…") and says so.
        assert not (await client.call_tool("fault__mutate", {})).is_error
        await asyncio.wait_for(changed.wait(), 30)  # the client is told its tools changed
        assert "fault__echo" not in {t.name for t in (await client.list_tools()).tools}
        blocked = await client.call_tool("fault__echo", {"text": "after"})
        assert blocked.is_error and "changed" in blocked.content[0].text  # type: ignore[union-attr]
        assert app.runtime.mcp is not None
        assert await app.runtime.mcp.approve_tool_change("fault__echo")  # the person re-approves in the catalog
        assert "fault__echo" in {t.name for t in (await client.list_tools()).tools}
        assert not (await client.call_tool("fault__echo", {"text": "again"})).is_error
    rows = app.audit(tool="fault__echo")
    assert [r["ok"] for r in reversed(rows)] == [True, False, True]


def test_servers_fixture_wrote_the_fault_server(servers: dict[str, Any]) -> None:
    assert "fault" in json.loads((config_dir() / "mcp.json").read_text())["mcpServers"]


async def test_lone_surrogates_in_a_call_are_answered_and_recorded_and_the_session_goes_on(
        app: App, gateway_env: dict[str, str]) -> None:
    """A JSON ``"\\udcff"`` is valid JSON but no UTF-8 text: the relay to the app, the audit log
    and the answer must all still work (the audit log's writer once ended on it)."""
    raw = await Raw.start("cursor", gateway_env)
    try:
        await raw.send(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"' + AUTO.encode()
                       + b'","arguments":{"timezone":"\\udcff"}}}\n')
        answer = await raw.receive()
        assert answer["id"] == 3 and answer["result"]["isError"] is True
        await raw.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                        "params": {"name": AUTO, "arguments": {"timezone": "UTC"}}})
        assert (await raw.receive())["result"]["isError"] is False
    finally:
        await raw.close()
    app.runtime.audit.flush()
    assert len(app.audit(client="cursor")) == 2


async def test_a_number_too_long_to_read_is_a_parse_error_for_its_id_and_the_session_goes_on(
        app: App, gateway_env: dict[str, str]) -> None:
    """JSON allows an integer of any length; Python reads at most 4,300 digits and raises a
    ``ValueError`` that is not a ``JSONDecodeError``. One such line ended the client's session
    (its calls withdrawn, no answer): like nesting too deep, it is a parse error naming its id."""
    raw = await Raw.start("cursor", gateway_env)
    try:
        long_number = b"9" * 5000
        await raw.send(b'{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"' + AUTO.encode()
                       + b'","arguments":{"timezone":' + long_number + b"}}}\n")
        refused = await raw.receive()
        assert refused["id"] == 21 and refused["error"]["code"] == -32700
        # An id of 5,000 digits: answered with no id, never with its first digits (another request's).
        await raw.send(b'{"jsonrpc":"2.0","id":' + long_number + b',"method":"ping"}\n')
        assert (await raw.receive()) == {"jsonrpc": "2.0", "id": None,
                                         "error": {"code": -32700, "message": "Parse error: a number too long to read"}}
        # Bytes that are not UTF-8: a parse error too (it also ended the session).
        await raw.send(b'{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":{"x":"\xff"}}}\n')
        assert (await raw.receive())["error"]["code"] == -32700
        await raw.send({"jsonrpc": "2.0", "id": 22, "method": "tools/call",
                        "params": {"name": AUTO, "arguments": {"timezone": "UTC"}}})
        assert (await raw.receive())["result"]["isError"] is False
    finally:
        await raw.close()


ASKS_TIME = "time__convert_time"  # an MCP tool with no policy: it asks the person


def _held(app: App, client: str) -> int:
    """The client's calls under way in the app (relayed or served there on its handed pipes)."""
    return sum(c.session.running for c in list(app.service._connections) if c.session.client == client)


def _convert(request_id: int | str, time_text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": ASKS_TIME, "arguments": {"source_timezone": "UTC", "time": time_text, "target_timezone": "UTC"}}}


async def test_a_flood_of_calls_waiting_for_the_person_is_bounded_and_the_rest_refused_at_once(
        app: App, gateway_env: dict[str, str]) -> None:
    """Each call that needs the person was held in the app with its arguments and preview for as
    long as the person took, without bound: 300 calls of 1 MB each grew the app by 900 MB while
    3 were in front of the person. A client's calls waiting for the person are bounded (and all
    clients' together): one past it is refused at once, says why, and is recorded as refused."""
    from echo_desk.gateway.session import APPROVALS_AT_ONCE, PENDING_PER_CLIENT

    raw = await Raw.start("cursor", gateway_env)
    sent = PENDING_PER_CLIENT + 24
    try:
        for i in range(sent):
            await raw.send(_convert(100 + i, f"{i:02d}:00" + " " * 65536))
        refused = [await raw.receive() for _ in range(sent - PENDING_PER_CLIENT)]
        assert all(r["result"]["isError"] for r in refused)
        assert all("waiting for the person" in r["result"]["content"][0]["text"] for r in refused)
        # (a refused call's task ends just after its answer went out)
        await wait_until(lambda: _held(app, "cursor") == PENDING_PER_CLIENT, 10, "the refused calls ending")
        assert len(app.person.requests) == APPROVALS_AT_ONCE
        # Another client is still asked (this one's bound is its own) ...
        vscode = await Raw.start("vscode", gateway_env)
        try:
            await vscode.send(_convert(7, "01:00"))
            theirs = await app.person.asked(APPROVALS_AT_ONCE + 1)
            assert theirs.client == "vscode"
            # ... until the calls of every client waiting together reach the shared bound.
            app.service._waiting.at_most = app.service._waiting.count
            await vscode.send(_convert(8, "02:00"))
            answer = await vscode.receive()
            assert answer["id"] == 8 and answer["result"]["isError"]
            assert "calls of connected apps already wait" in answer["result"]["content"][0]["text"]
            app.person.answer(theirs, ApprovalChoice.DENY)
            assert (await vscode.receive())["id"] == 7
        finally:
            await vscode.close()
        # An answer makes room: the next call waits for the person again.
        app.person.answer(app.person.requests[0], ApprovalChoice.DENY)
        assert (await raw.receive())["id"] not in {r["id"] for r in refused}
        await raw.send(_convert(999, "03:00"))
        await wait_until(lambda: _held(app, "cursor") == PENDING_PER_CLIENT, 10, "the next call waiting")
    finally:
        await raw.close()
    app.runtime.audit.flush()
    denied = [r for r in app.audit(client="cursor", limit=1000) if r["decision"] == "denied"]
    assert len(denied) >= sent - PENDING_PER_CLIENT + 1  # every refused call is in the audit


@pytest.mark.parametrize("served_by", ["hand", "sdk"])
async def test_a_request_id_still_in_flight_is_refused_so_a_cancel_withdraws_the_call_it_names(
        app: App, gateway_env: dict[str, str], served_by: str) -> None:
    """JSON-RPC ids name requests under way, and a cancel names one by its id. A second call with
    the id of one still waiting for the person was taken anyway: served by hand, the reused id went
    to the SDK's server and a cancel of it withdrew only the first call; served by the SDK, the
    second overwrote the first, whose dialog could then be cancelled no more. Either way a call the
    client had cancelled stayed in front of the person, and ran once approved (its answer under the
    cancelled id). A request whose id is still in flight is refused at once, and nothing of it runs."""
    env = dict(gateway_env)
    if served_by == "sdk":
        env["ECHO_DESK_GATEWAY_SDK"] = "1"
    raw = await Raw.start("cursor", env)
    try:
        await raw.send(_convert(5, "01:00"))
        first = await app.person.asked(1)
        await raw.send(_convert(5, "02:00"))
        refused = await raw.receive(60)
        assert refused["id"] == 5 and refused["error"]["code"] == -32600, refused
        assert "already" in refused["error"]["message"]
        # The same id as a string names the same request (the SDK correlates "5" and 5 as one).
        await raw.send(_convert("5", "03:00"))
        assert (await raw.receive(60))["error"]["code"] == -32600
        await raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        await app.person.withdrawn_count(1)
        assert app.person.withdrawn == [first]
        await asyncio.sleep(1.0)
        assert len(app.person.requests) == 1, [r.arguments for r in app.person.requests]
        # Once it is over, the id may be used again.
        await raw.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                        "params": {"name": AUTO, "arguments": {"timezone": "UTC"}}})
        assert (await raw.receive())["result"]["isError"] is False
    finally:
        for request in app.person.requests[1:]:
            with contextlib.suppress(Exception):
                app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        await raw.close()
    app.runtime.audit.flush()
    rows = [(r["ok"], r["error_kind"]) for r in app.audit(client="cursor", limit=100) if r["tool"] == ASKS_TIME]
    assert rows == [(False, "cancelled")]  # the one call, withdrawn; nothing of the reused id ran
