"""Streamable HTTP on 127.0.0.1: tokens (401), Origin and Host (403), and real clients over it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from echo_desk.agent.host import ApprovalChoice
from echo_desk.gateway.tokens import new_token, revoke_token
from tests.mcp.helpers import wait_until

from .conftest import ASKS, AUTO, App, needs_everything, needs_node_clients, needs_time
from .node_clients import TsClient, run_inspector

pytestmark = [needs_time, needs_everything]

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Http:
    def __init__(self, app: App, port: int, tokens: dict[str, str]) -> None:
        self.app, self.port, self.tokens = app, port, tokens
        self.url = f"http://127.0.0.1:{port}/mcp"

    def client(self, name: str) -> Client:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.tokens[name]}"}, timeout=60)
        return Client(streamable_http_client(self.url, http_client=http))


@pytest.fixture
async def http(app: App) -> AsyncIterator[Http]:
    store = app.runtime.settings
    from .conftest import allow_builtins

    allow_builtins(store, "cursor")  # the profiles exist; cursor also sees the built-ins
    store.update(lambda s: setattr(s.gateway, "clients", {**s.gateway.clients,
                                                          "vscode": s.gateway.client("vscode")}))
    tokens = {name: new_token(name) for name in ("cursor", "vscode")}
    port = free_port()
    loop = app.runtime.mcp.loop if app.runtime.mcp else None
    assert loop is not None
    await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(app.service.start_http(port), loop))
    yield Http(app, port, tokens)
    await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(app.service.stop_http(), loop))


async def _post(url: str, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.post(url, headers={**ACCEPT, **headers}, content=json.dumps(INITIALIZE))


async def test_no_or_a_wrong_token_is_401_and_a_revoked_one_too(http: Http) -> None:
    assert (await _post(http.url, {})).status_code == 401
    wrong = await _post(http.url, {"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    assert (await _post(http.url, {"Authorization": f"Basic {http.tokens['cursor']}"})).status_code == 401
    good = await _post(http.url, {"Authorization": f"Bearer {http.tokens['cursor']}"})
    assert good.status_code == 200
    revoke_token("cursor")
    assert (await _post(http.url, {"Authorization": f"Bearer {http.tokens['cursor']}"})).status_code == 401


async def test_a_foreign_origin_or_host_is_403_even_with_a_good_token(http: Http) -> None:
    token = {"Authorization": f"Bearer {http.tokens['cursor']}"}
    for origin in ("http://evil.example", f"http://evil.example:{http.port}", "null", f"https://127.0.0.1:{http.port}"):
        assert (await _post(http.url, {**token, "Origin": origin})).status_code == 403, origin
    # DNS rebinding: a name that now points at 127.0.0.1, as the browser sends it.
    assert (await _post(http.url, {**token, "Host": f"evil.example:{http.port}"})).status_code == 403
    assert (await _post(http.url, {**token, "Origin": f"http://localhost:{http.port}"})).status_code == 200


async def _upgrade(http: Http, host: str, headers: str = "") -> bytes:
    """A WebSocket upgrade request, as a web page's script sends it; the raw answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", http.port)
    writer.write((f"GET /mcp HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                  f"{headers}\r\n").encode())
    await writer.drain()
    try:
        return await asyncio.wait_for(_whole_answer(reader), 30)
    finally:
        writer.close()


async def _whole_answer(reader: asyncio.StreamReader) -> bytes:
    """The status, headers and body of one answer: the server may send the body in a later packet
    than the headers, so one read() can stop short of it."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    return head + await reader.readexactly(length)


async def test_a_websocket_upgrade_is_checked_like_any_request_and_never_accepted(http: Http) -> None:
    # With a WebSocket library installed, the server took upgrades past the checks straight to
    # MCP's app (which had no route for them): the checks must judge them as any request.
    foreign = await _upgrade(http, f"evil.example:{http.port}", "Origin: http://evil.example\r\n")
    assert foreign.startswith(b"HTTP/1.1 403") and b"Host refused" in foreign
    untokened = await _upgrade(http, f"127.0.0.1:{http.port}")
    assert untokened.startswith(b"HTTP/1.1 401")
    tokened = await _upgrade(http, f"127.0.0.1:{http.port}", f"Authorization: Bearer {http.tokens['cursor']}\r\n")
    assert not tokened.startswith(b"HTTP/1.1 101"), tokened


async def test_python_sdk_over_http_each_client_by_its_token(http: Http) -> None:
    async with http.client("cursor") as cursor, http.client("vscode") as vscode:
        cursor_names = {t.name for t in (await cursor.list_tools()).tools}
        vscode_names = {t.name for t in (await vscode.list_tools()).tools}
        assert AUTO in cursor_names and "read_file" in cursor_names
        assert AUTO in vscode_names and "read_file" not in vscode_names  # its own profile
        result = await vscode.call_tool(AUTO, {"timezone": "UTC"})
    assert not result.is_error
    assert http.app.audit(tool=AUTO)[0]["client"] == "vscode"


async def test_python_sdk_over_http_approval_with_progress_and_cancel(http: Http) -> None:
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with http.client("cursor") as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "over http"}, progress_callback=on_progress))
        request = await http.app.person.asked()
        assert request.client == "cursor"
        await wait_until(lambda: len(progress) >= 2, 10, "progress over HTTP")
        http.app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error and "over http" in result.content[0].text  # type: ignore[union-attr]
        withdrawn = asyncio.ensure_future(client.call_tool(ASKS, {"message": "never mind"}))
        await http.app.person.asked(2)
        withdrawn.cancel()
        await http.app.person.withdrawn_count(1)
    await wait_until(lambda: http.app.audit(tool=ASKS, limit=5)[0]["error_kind"] == "cancelled", 10, "the audit")


async def test_a_call_under_way_when_the_app_quits_is_answered_so_and_the_quit_does_not_wait(http: Http) -> None:
    # Before, the quit stopped the HTTP server first: it waited 10 s for the request under way,
    # which was answered only after it ("the connection to Echo Desk was lost"), and the quit gave
    # up on the rest of its steps.
    async with http.client("cursor") as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "the app quits"}))
        await http.app.person.asked()
        began = time.monotonic()
        await http.app.service.shutdown()
        assert time.monotonic() - began < 5
        result = await asyncio.wait_for(call, 10)
    assert result.is_error
    assert "Echo Desk quit while this call of everything__echo ran" in result.content[0].text  # type: ignore[union-attr]
    row = http.app.audit(tool=ASKS, limit=1)[0]
    assert row["client"] == "cursor" and row["error_kind"] == "cancelled" and row["decision"] == "withdrawn"


@needs_node_clients
async def test_ts_sdk_over_http(http: Http, gateway_env: dict[str, str]) -> None:
    client = await TsClient.start("http", http.url, http.tokens["cursor"], env=gateway_env)
    try:
        assert ASKS in (await client.request("list"))["result"]
        auto = await client.request("call", name=AUTO, arguments={"timezone": "UTC"})
        waiting = client.send("call", name=ASKS, arguments={"message": "ts over http"}, progress=True, timeout=1500)
        request = await http.app.person.asked()
        await wait_until(lambda: len(client.progress.get(waiting, [])) >= 10, 20, "progress")
        http.app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        approved = await client.answer(waiting)
    finally:
        await client.close()
    assert auto["result"]["isError"] is False
    assert "error" not in approved, approved
    assert approved["result"]["isError"] is False


@needs_node_clients
async def test_ts_sdk_over_http_with_a_wrong_token_is_refused(http: Http, gateway_env: dict[str, str]) -> None:
    with pytest.raises(ConnectionError, match=r"401|nauthorized|token"):
        await TsClient.start("http", http.url, "wrong", env=gateway_env)


@needs_node_clients
async def test_inspector_cli_over_http(http: Http, gateway_env: dict[str, str], short_dir: Path) -> None:
    auth = ["--header", f"Authorization: Bearer {http.tokens['cursor']}"]
    code, out, err = await run_inspector(["--transport", "http", "--server-url", http.url, *auth,
                                          "--method", "tools/list"], gateway_env, short_dir)
    assert code == 0, err
    assert AUTO in {t["name"] for t in json.loads(out)["tools"]}
    code, out, err = await run_inspector(["--transport", "http", "--server-url", http.url, *auth, "--method",
                                          "tools/call", "--tool-name", AUTO, "--tool-arg", "timezone=UTC"],
                                         gateway_env, short_dir)
    assert code == 0, err
    assert json.loads(out)["isError"] is False
    code, _out, _err = await run_inspector(["--transport", "http", "--server-url", http.url,
                                            "--method", "tools/list"], gateway_env, short_dir)
    assert code != 0  # no token: refused



async def test_the_setting_starts_and_stops_the_http_gateway(app: App) -> None:
    port = free_port()
    store = app.runtime.settings

    def http(enabled: bool) -> None:
        store.update(lambda s: setattr(s, "gateway", s.gateway.model_copy(
            update={"http_enabled": enabled, "http_port": port})))

    http(True)
    await wait_until(lambda: app.service.http_port == port, 15, "the HTTP gateway to start")
    assert (await _post(f"http://127.0.0.1:{port}/mcp", {})).status_code == 401  # up, and asks for a token
    http(False)
    await wait_until(lambda: app.service.http_port is None, 15, "the HTTP gateway to stop")
    with pytest.raises(httpx.ConnectError):
        await _post(f"http://127.0.0.1:{port}/mcp", {})


async def test_without_a_keyring_the_setting_starts_it_and_a_new_clients_token_works(app: App) -> None:
    # The tests' keyring is the failing one, as on a headless machine: tokens need none. And the
    # client has never connected (no profile yet): the token made for it is enough, as the docs say.
    token = new_token("cursor")
    assert "cursor" not in app.runtime.settings.current.gateway.clients
    port = free_port()
    app.runtime.settings.update(lambda s: setattr(s, "gateway", s.gateway.model_copy(update={
        "http_enabled": True, "http_port": port})))
    await wait_until(lambda: app.service.http_port == port, 15, "the HTTP gateway to listen")
    assert app.service.http_error == ""
    url = f"http://127.0.0.1:{port}/mcp"
    assert (await _post(url, {"Authorization": f"Bearer {token}"})).status_code == 200
    assert (await _post(url, {"Authorization": "Bearer not-it"})).status_code == 401
    async with Http(app, port, {"cursor": token}).client("cursor") as cursor:
        names = {t.name for t in (await cursor.list_tools()).tools}
    profile = app.runtime.settings.current.gateway.clients["cursor"]  # made on its first session
    assert AUTO in names and not profile.builtins and "read_file" not in names  # the safe defaults
    revoke_token("cursor")
    assert (await _post(url, {"Authorization": f"Bearer {token}"})).status_code == 401


async def test_a_50_mb_request_over_http_is_refused_before_mcp_reads_it(http: Http) -> None:
    huge = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": AUTO, "arguments": {"timezone": "x" * (50 * 1024 * 1024)}}})
    async with httpx.AsyncClient(timeout=60) as client:
        answer = await client.post(http.url, content=huge, headers={
            **ACCEPT, "Authorization": f"Bearer {http.tokens['cursor']}"})
    assert answer.status_code == 413
    assert http.app.audit(tool=AUTO) == []  # it never reached a tool


async def test_a_session_is_its_clients_alone(http: Http) -> None:
    # The token says which client this is; the session id (Mcp-Session-Id) must not let another
    # client's token into that session: to cancel its calls, read its stream or end it.
    cursor = {"Authorization": f"Bearer {http.tokens['cursor']}"}
    vscode = {"Authorization": f"Bearer {http.tokens['vscode']}"}
    opened = await _post(http.url, cursor)
    assert opened.status_code == 200
    session = opened.headers["mcp-session-id"]
    async with httpx.AsyncClient(timeout=30) as client:
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        for method, headers in (("POST", vscode), ("DELETE", vscode)):
            answer = await client.request(method, http.url, content=ping if method == "POST" else None,
                                          headers={**ACCEPT, **headers, "Mcp-Session-Id": session,
                                                   "Mcp-Protocol-Version": "2025-06-18"})
            assert answer.status_code == 404, (method, answer.status_code, answer.text)
        # Twice the header, its own session last: read as one session by the check and the other by MCP.
        own = (await _post(http.url, vscode)).headers["mcp-session-id"]
        twice = await client.post(http.url, content=ping, headers=[
            *ACCEPT.items(), *vscode.items(), ("Mcp-Session-Id", session), ("Mcp-Session-Id", own),
            ("Mcp-Protocol-Version", "2025-06-18")])
        assert twice.status_code in (400, 404), (twice.status_code, twice.text)
        # The session is still there for its own client.
        mine = await client.request("DELETE", http.url, headers={**ACCEPT, **cursor, "Mcp-Session-Id": session,
                                                                   "Mcp-Protocol-Version": "2025-06-18"})
        assert mine.status_code == 200, mine.text


class RawSession:
    """An MCP session of the handshake era over HTTP (``Mcp-Session-Id``), as the TypeScript SDK
    keeps one (Cursor, VS Code…): a client restarted is a new session."""

    def __init__(self, http: Http, client: httpx.AsyncClient) -> None:
        self.http, self.client, self.session = http, client, ""
        self.ids = iter(range(1, 1000))

    def _headers(self) -> dict[str, str]:
        extra = {"Mcp-Session-Id": self.session, "Mcp-Protocol-Version": "2025-06-18"} if self.session else {}
        return {**ACCEPT, "Authorization": f"Bearer {self.http.tokens['cursor']}", **extra}

    async def open(self) -> None:
        opened = await self.client.post(self.http.url, headers=self._headers(), content=json.dumps(INITIALIZE))
        self.session = opened.headers["mcp-session-id"]
        await self.client.post(self.http.url, headers=self._headers(),
                               content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    async def call(self, name: str, arguments: dict[str, str]) -> dict[str, object]:
        body = {"jsonrpc": "2.0", "id": next(self.ids) + 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}
        answer = await self.client.post(self.http.url, headers=self._headers(), content=json.dumps(body))
        data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")] or [answer.text]
        return json.loads(data[-1])["result"]


async def test_allow_for_this_session_ends_with_the_mcp_session(http: Http) -> None:
    # "Allow for this session of Cursor" over HTTP lasted as long as Echo Desk's HTTP gateway:
    # a new MCP session (Cursor restarted, another window) ran unasked on the first one's grant.
    async with httpx.AsyncClient(timeout=60) as client:
        first, second = RawSession(http, client), RawSession(http, client)
        await first.open()
        call = asyncio.ensure_future(first.call(ASKS, {"message": "one"}))
        http.app.person.answer(await http.app.person.asked(1), ApprovalChoice.ALLOW_CONVERSATION)
        assert not (await asyncio.wait_for(call, 30)).get("isError")
        again = await asyncio.wait_for(first.call(ASKS, {"message": "two"}), 30)  # the same session: unasked
        assert not again.get("isError") and len(http.app.person.requests) == 1
        await second.open()
        call = asyncio.ensure_future(second.call(ASKS, {"message": "three"}))
        asked = asyncio.ensure_future(http.app.person.asked(2))
        await asyncio.wait({call, asked}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        assert asked.done() and not call.done(), "the second session ran unasked on the first one's grant"
        http.app.person.answer(asked.result(), ApprovalChoice.DENY)
        assert (await asyncio.wait_for(call, 30)).get("isError")


async def test_backends_are_per_session_bounded_and_closed_when_a_session_ends(monkeypatch) -> None:
    import types

    from echo_desk.gateway import http as gateway_http

    closed: list[str] = []

    class Fake:
        def __init__(self, name: str) -> None:
            self.name = name

        async def aclose(self) -> None:
            closed.append(self.name)

    monkeypatch.setattr(gateway_http, "client_for", lambda token, _clients: token or None)
    made = iter(range(1000))
    gateway = gateway_http.HttpGateway(0, list, lambda client: Fake(f"{client}-{next(made)}"))

    def ctx(client: str, session: str) -> object:
        return types.SimpleNamespace(request=types.SimpleNamespace(
            headers={"Authorization": f"Bearer {client}", "Mcp-Session-Id": session}))

    first = await gateway._backend_for(ctx("cursor", "s0"))
    assert await gateway._backend_for(ctx("cursor", "s0")) is first
    assert await gateway._backend_for(ctx("vscode", "s0")) is not first  # the session's owner is checked before
    for i in range(1, gateway_http.MAX_SESSIONS_PER_CLIENT + 1):
        await gateway._backend_for(ctx("cursor", f"s{i}"))
    await wait_until(lambda: closed == [first.name], 5, "the oldest session's backend closed")
    gateway._session_ended("s3")
    await wait_until(lambda: len(closed) == 2, 5, "an ended session's backend closed")
    assert ("cursor", "s3") not in gateway.backends and ("vscode", "s0") in gateway.backends


async def test_sessions_are_remembered_within_a_bound_and_an_unknown_one_is_no_ones(monkeypatch) -> None:
    # Sessions that end without a DELETE (a client closed, one the SDK reaped when idle) were
    # remembered for as long as the gateway ran, and a session not opened here was let through.
    from echo_desk.gateway import http as gateway_http

    monkeypatch.setattr(gateway_http, "MAX_OWNED_SESSIONS", 3)
    monkeypatch.setattr(gateway_http, "client_for", lambda token, _clients: token or None)
    opened = iter(range(1000))

    async def mcp(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        named = dict(scope["headers"]).get(b"mcp-session-id")
        headers = [] if named else [(b"mcp-session-id", f"s{next(opened)}".encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})

    guard = gateway_http.Guard(mcp, 8000, list)

    async def status(client: str, session: str | None = None) -> int:
        headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {client}".encode())]
        if session is not None:
            headers.append((b"mcp-session-id", session.encode()))
        sent: list[dict[str, object]] = []

        async def send(message):  # type: ignore[no-untyped-def]
            sent.append(message)

        async def receive():  # type: ignore[no-untyped-def]
            return {"type": "http.request", "body": b"{}", "more_body": False}

        await guard({"type": "http", "method": "POST", "headers": headers}, receive, send)
        return int(sent[0]["status"])  # type: ignore[call-overload]

    assert await status("cursor", "never-opened") == 404
    for _ in range(5):
        assert await status("cursor") == 200
    assert list(guard.owners) == ["s2", "s3", "s4"]
    assert await status("cursor", "s4") == 200
    assert await status("cursor", "s0") == 404  # forgotten: the client opens a new session
    assert await status("vscode", "s4") == 404


@pytest.fixture
def few_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small bounds (before ``http`` starts the gateway): 2 sessions remembered per client, 4 open in MCP."""
    from echo_desk.gateway import http as gateway_http

    monkeypatch.setattr(gateway_http, "MAX_OWNED_SESSIONS", 2)
    monkeypatch.setattr(gateway_http, "MAX_OPEN_SESSIONS", 4, raising=False)


async def test_one_clients_sessions_never_crowd_out_anothers(few_sessions: None, http: Http) -> None:
    # A client opening session after session (a loop, or a client that restarts and never sends
    # DELETE) made the gateway forget the oldest sessions of every client (another client's then
    # got 404 for its calls, its cancels and its stream), and filled MCP's open sessions, after
    # which every client's new session was refused (503) for the 30 minutes an idle one lives.
    cursor = {"Authorization": f"Bearer {http.tokens['cursor']}"}
    vscode = {"Authorization": f"Bearer {http.tokens['vscode']}"}
    async with httpx.AsyncClient(timeout=30) as client:

        async def ping(headers: dict[str, str], session: str) -> int:
            answer = await client.post(http.url, content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
                                       headers={**ACCEPT, **headers, "Mcp-Session-Id": session,
                                                "Mcp-Protocol-Version": "2025-06-18"})
            return answer.status_code

        theirs = (await _post(http.url, vscode)).headers["mcp-session-id"]
        floods = []
        for _ in range(6):
            opened = await _post(http.url, cursor)
            assert opened.status_code == 200, opened.text
            floods.append(opened.headers["mcp-session-id"])
        assert await ping(vscode, theirs) == 200, "another client's flood made its session unknown"
        assert (await _post(http.url, vscode)).status_code == 200, "another client's flood filled MCP's sessions"
        assert await ping(cursor, floods[-1]) == 200
        assert await ping(cursor, floods[0]) == 404  # the flooding client's own oldest is forgotten


SILENT_PEER = """
import socket, sys, time
port, count, trickle = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
socks = []
for _ in range(count):
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    except OSError:
        pass
print(len(socks), flush=True)
started = time.monotonic()
while time.monotonic() - started < 60:
    for s in socks:
        if trickle:  # a request's headers, one byte at a time (never a whole one)
            try:
                s.send(b"P")
            except OSError:
                pass
    time.sleep(0.3)
"""


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("trickle", [False, True])
async def test_silent_connections_are_bounded_and_closed_without_a_request(
        http: Http, monkeypatch: pytest.MonkeyPatch, trickle: bool) -> None:
    # uvicorn waited for a request's headers for ever and took every connection: any local
    # program, of any user and with no token, held one file descriptor of the app's per
    # connection it opened and left silent (300 of them: +300 fds, still held 20 s later; with
    # the usual limit of 1,024, the app could then open no file: "Too many open files").
    from echo_desk.gateway import http as gateway_http

    monkeypatch.setattr(gateway_http, "MAX_CONNECTIONS", 20)
    monkeypatch.setattr(gateway_http, "HEADERS_DEADLINE_SECONDS", 1.5)
    before = _open_fds()
    peer = await asyncio.create_subprocess_exec(sys.executable, "-c", SILENT_PEER, str(http.port), "80",
                                                "1" if trickle else "0", stdout=asyncio.subprocess.PIPE)
    try:
        assert peer.stdout is not None
        await asyncio.wait_for(peer.stdout.readline(), 30)
        await asyncio.sleep(0.5)
        assert _open_fds() - before <= 20 + 5, "connections past the bound were kept"
        await wait_until(lambda: _open_fds() - before <= 5, 10, "the silent connections closed")
    finally:
        if peer.returncode is None:
            peer.kill()
        await peer.wait()
    # A call that waits for the person longer than the deadline is a request under way: kept.
    async with http.client("cursor") as client:
        call = asyncio.ensure_future(client.call_tool(ASKS, {"message": "slow answer"}))
        request = await http.app.person.asked()
        await asyncio.sleep(2.5)
        http.app.person.answer(request, ApprovalChoice.ALLOW_ONCE)
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error, result
        await asyncio.sleep(2.5)  # idle between requests past the deadline: the client goes on
        assert not (await client.call_tool(AUTO, {"timezone": "UTC"})).is_error


async def test_a_request_id_still_under_way_in_a_session_is_refused_so_a_cancel_withdraws_the_call_it_names(
        http: Http) -> None:
    """Two calls of one session with one id: MCP kept the second, so a cancel of the id withdrew
    it, while the first stayed in front of the person, ran once approved (the audit: allowed), and
    its client was told "Request cancelled". A request whose id is under way in its session is
    refused at once; nothing of it runs."""
    async with httpx.AsyncClient(timeout=60) as client:
        raw = RawSession(http, client)
        await raw.open()

        def call(request_id: int | str, message: str) -> str:
            return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                               "params": {"name": ASKS, "arguments": {"message": message}}})

        first = asyncio.ensure_future(client.post(http.url, headers=raw._headers(), content=call(5, "one")))
        asked = await http.app.person.asked(1)
        for reused in (call(5, "two"), call("5", "three")):
            refused = await asyncio.wait_for(client.post(http.url, headers=raw._headers(), content=reused), 20)
            assert refused.json()["error"]["code"] == -32600, refused.text
        # Another session's id 5 is its own.
        other = RawSession(http, client)
        await other.open()
        theirs = asyncio.ensure_future(client.post(http.url, headers=other._headers(), content=call(5, "four")))
        await http.app.person.asked(2)
        await client.post(http.url, headers=raw._headers(), content=json.dumps(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}))
        await http.app.person.withdrawn_count(1)
        assert http.app.person.withdrawn == [asked]
        await asyncio.wait_for(first, 30)
        http.app.person.answer(http.app.person.requests[1], ApprovalChoice.DENY)
        await asyncio.wait_for(theirs, 30)
        assert len(http.app.person.requests) == 2
    http.app.runtime.audit.flush()
    rows = [(r["ok"], r["decision"], r["error_kind"]) for r in http.app.audit(client="cursor", limit=10)]
    assert all(not ok for ok, _decision, _kind in rows) and len(rows) == 2, rows


async def test_a_port_in_use_is_a_sentence_for_the_person_and_goes_when_switched_off(app: App) -> None:
    # Before: http_error was "[Errno 98] error while attempting to bind on address …", and nothing showed it.
    from echo_desk.i18n import current_language, set_language, shown

    store = app.runtime.settings
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        store.update(lambda s: setattr(s, "gateway", s.gateway.model_copy(
            update={"http_enabled": True, "http_port": port})))
        await wait_until(lambda: app.service.http_error != "", 15, "the HTTP gateway to fail")
        assert app.service.http_port is None
        assert shown(app.service.http_error) == (f"The HTTP gateway could not start: another program already uses "
                                                 f"port {port} on 127.0.0.1. Choose another port, or end that program.")
        before = current_language()
        set_language("zh_CN")
        try:
            assert f"另一个程序已经在使用 127.0.0.1 上的端口 {port}" in shown(app.service.http_error)
        finally:
            set_language(before)
        store.update(lambda s: setattr(s, "gateway", s.gateway.model_copy(update={"http_enabled": False})))
        await wait_until(lambda: app.service.http_error == "", 15, "the failure to be forgotten")
