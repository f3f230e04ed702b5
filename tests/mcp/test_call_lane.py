"""``tools/call`` past the SDK's session: real servers of both protocol eras, and the routing exactly."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from echo_desk.mcp.call_lane import CallLane
from echo_desk.mcp.connection import ServerConnection
from tests.mcp.conftest import everything_config, fault_config


async def _no_elicitation(context: Any, params: Any) -> types.ElicitResult:
    raise AssertionError("nothing here asks the person")


async def _nothing() -> None:
    return None


def _connection(config: Any) -> ServerConnection:
    return ServerConnection(config, elicitation=_no_elicitation, on_tools_changed=_nothing, on_lost=lambda _r: None)


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("the call went through the SDK's session")


@pytest.mark.parametrize(
    ("config", "era", "tool", "arguments", "expected"),
    [
        (fault_config(), "2026-07-28", "echo", {"text": "über 漢字"}, "über 漢字"),
        (everything_config(), "2025-11-25", "echo", {"message": "über 漢字"}, "Echo: über 漢字"),
    ],
    ids=["2026-era", "handshake-era"],
)
async def test_a_call_of_either_era_never_touches_the_session(
    config: Any, era: str, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    conn = _connection(config)
    await conn.start()
    try:
        assert conn.protocol_version == era
        assert conn.calls_past_the_session
        # Listed first, as the manager does (the session keeps the output schemas it checks against).
        assert tool in {t.name for t in await conn.list_tools()}
        # Were the call to take the SDK's way, these would fail it.
        session: Any = conn.client.session
        session.send_request = _refuse
        session.call_tool = _refuse
        results = await asyncio.gather(*(conn.call_tool(tool, arguments) for _ in range(5)))
        assert [_text(r) for r in results] == [expected] * 5
        assert not any(r.is_error for r in results)
        # The session still works on the same streams.
        del session.send_request
        assert tool in {t.name for t in await conn.list_tools()}
    finally:
        await conn.close()


async def _outcome(call: Any) -> tuple[str, Any]:
    try:
        result = await call
    except Exception as exc:  # the outcome compared is whatever either way raises
        return type(exc).__name__, getattr(exc, "code", None)
    return "result", result.model_dump()


@pytest.mark.parametrize(
    ("config", "calls"),
    [
        (fault_config(), [("echo", {"text": "a"}), ("fail", {}), ("weather", {"city": "Oslo"}), ("malformed", {}),
                          ("echo", {}), ("no-such-tool", {})]),
        (everything_config(), [("echo", {"message": "a"}), ("get-sum", {"a": 1, "b": 2}), ("echo", {}),
                               ("no-such-tool", {})]),
    ],
    ids=["2026-era", "handshake-era"],
)
async def test_every_outcome_is_the_one_the_sdk_gives(config: Any, calls: list[tuple[str, dict[str, Any]]]) -> None:
    conn = _connection(config)
    await conn.start()
    try:
        await conn.list_tools()
        assert conn.calls_past_the_session
        for name, arguments in calls:
            theirs = await _outcome(conn.client.call_tool(name, arguments))
            ours = await _outcome(conn.call_tool(name, arguments))
            assert ours == theirs, name
        after = await conn.call_tool(calls[0][0], calls[0][1])
        assert not after.is_error
    finally:
        await conn.close()


# -- the routing, exactly (a scripted server on memory streams) -------------------------------------


class _Session:
    def __init__(self) -> None:
        self.validated: list[str] = []

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        self.validated.append(name)


def _stamp(data: dict[str, Any], _opts: dict[str, Any]) -> None:
    data["params"].setdefault("_meta", {})["stamped"] = True


async def _retry_once(first: types.InputRequiredResult, retry: Any) -> Any:
    return await retry(None, first.request_state)


def _client(session: _Session, drive: Any = _retry_once) -> Any:
    """A stand-in for the SDK's client: the session's stamp and output check, and its input driver."""
    return SimpleNamespace(session=SimpleNamespace(_stamp=_stamp, validate_tool_result=session.validate_tool_result),
                           _drive_input_required=drive)


class _Wire:
    """The server's ends of a lane's two streams."""

    def __init__(self) -> None:
        self.to_lane, lane_reads = anyio.create_memory_object_stream[Any](10)
        lane_writes, self.from_lane = anyio.create_memory_object_stream[SessionMessage](10)
        self.lane = CallLane(lane_reads, lane_writes)

    async def request(self) -> types.JSONRPCRequest:
        message = (await self.from_lane.receive()).message
        assert isinstance(message, types.JSONRPCRequest)
        return message

    async def notification(self) -> types.JSONRPCNotification:
        message = (await self.from_lane.receive()).message
        assert isinstance(message, types.JSONRPCNotification)
        return message

    async def send(self, message: Any) -> None:
        await self.to_lane.send(SessionMessage(message))


async def test_the_lanes_answers_stop_there_and_the_rest_reach_the_session() -> None:
    wire = _Wire()
    session = _Session()
    assert wire.lane.adopt(_client(session))
    session_reads, _ = wire.lane.streams
    async with anyio.create_task_group() as group:
        group.start_soon(wire.lane.pump)
        call = asyncio.ensure_future(wire.lane.call_tool("echo", {"text": "hi"}))
        sent = await wire.request()
        assert sent.method == "tools/call"
        assert sent.params == {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"stamped": True}}
        # Before the answer: the session's own answer (an int id), a notification, an answer
        # with a string id the lane never sent. All of them are the session's.
        theirs = [types.JSONRPCResponse(jsonrpc="2.0", id=0, result={}),
                  types.JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed"),
                  types.JSONRPCResponse(jsonrpc="2.0", id="someone-else", result={})]
        for message in theirs:
            await wire.send(message)
        received = [await session_reads.receive() for _ in theirs]
        assert [item.message for item in received if isinstance(item, SessionMessage)] == theirs
        assert not call.done()
        await wire.send(types.JSONRPCResponse(jsonrpc="2.0", id=sent.id, result={
            "content": [{"type": "text", "text": "hi"}], "structuredContent": {"text": "hi"}}))
        result = await call
        assert _text(result) == "hi" and result.structured_content == {"text": "hi"}
        assert session.validated == ["echo"]  # checked against the output schema, as the SDK does
        group.cancel_scope.cancel()


async def test_a_call_given_up_tells_the_server_and_a_lost_stream_fails_what_waits() -> None:
    wire = _Wire()
    assert wire.lane.adopt(_client(_Session()))
    async with anyio.create_task_group() as group:
        group.start_soon(wire.lane.pump)
        given_up = asyncio.ensure_future(wire.lane.call_tool("hang", {}))
        sent = await wire.request()
        given_up.cancel()
        cancelled = await wire.notification()
        assert cancelled.method == "notifications/cancelled"
        assert cancelled.params is not None and cancelled.params["requestId"] == sent.id
        assert cancelled.params["_meta"] == {"stamped": True}
        # A late answer to the call given up is dropped, not handed to the session as its own.
        await wire.send(types.JSONRPCResponse(jsonrpc="2.0", id=sent.id, result={"content": []}))

        waiting = asyncio.ensure_future(wire.lane.call_tool("hang", {}))
        await wire.request()
        await wire.to_lane.aclose()  # the server's stream ends
        with pytest.raises(MCPError) as caught:
            await waiting
        assert caught.value.code == types.CONNECTION_CLOSED
        assert not wire.lane.ready
        group.cancel_scope.cancel()
    session_reads, _ = wire.lane.streams
    with pytest.raises(anyio.EndOfStream):
        session_reads.receive_nowait()  # the session saw the end too (and never the late answer)


async def test_input_required_goes_to_the_sdks_driver() -> None:
    wire = _Wire()
    retried: list[Any] = []

    async def drive(first: types.InputRequiredResult, retry: Any) -> types.CallToolResult:
        retried.append(first.request_state)
        return types.CallToolResult(content=[types.TextContent(type="text", text="booked")])

    session = _Session()
    assert wire.lane.adopt(_client(session, drive))
    async with anyio.create_task_group() as group:
        group.start_soon(wire.lane.pump)
        call = asyncio.ensure_future(wire.lane.call_tool("book", {}))
        sent = await wire.request()
        await wire.send(types.JSONRPCResponse(jsonrpc="2.0", id=sent.id, result={
            "resultType": "input_required", "requestState": "s1"}))
        assert _text(await call) == "booked"
        assert retried == ["s1"]
        assert session.validated == ["book"]  # the driver's result is checked like any other
        group.cancel_scope.cancel()


def test_an_sdk_without_the_parts_keeps_calls_on_its_own_way() -> None:
    wire = _Wire()
    bare: Any = SimpleNamespace(session=SimpleNamespace(), _drive_input_required=None)
    assert not wire.lane.adopt(bare)
    assert not wire.lane.ready


class _OnTheWire:
    """A lane as ``stdio_transport`` makes it: it writes lines, and is handed the server's lines."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        _, lane_reads = anyio.create_memory_object_stream[Any](10)
        lane_writes, self.session_sent = anyio.create_memory_object_stream[SessionMessage](10)

        async def send_line(line: bytes) -> None:
            self.lines.append(line)

        self.lane = CallLane(lane_reads, lane_writes, send_line)

    def sent(self) -> dict[str, Any]:
        line = self.lines[-1]
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        message: dict[str, Any] = json.loads(line)
        return message


async def test_on_the_wire_the_lane_takes_only_well_formed_answers_to_its_own_requests() -> None:
    wire = _OnTheWire()
    session = _Session()
    assert wire.lane.adopt(_client(session))
    call = asyncio.ensure_future(wire.lane.call_tool("echo", {"text": "über"}))
    await asyncio.sleep(0)
    sent = wire.sent()
    # The line the SDK's writer would have written for the same request.
    assert sent == json.loads(types.JSONRPCRequest(jsonrpc="2.0", id=sent["id"], method="tools/call", params={
        "name": "echo", "arguments": {"text": "über"}, "_meta": {"stamped": True}}).model_dump_json(
        by_alias=True, exclude_unset=True))
    lane_id = sent["id"]
    # The session's: its own answers and requests, a notification quoting the lane's id, an
    # answer of the lane's that is no JSON-RPC response (its parser reports it), a cut line.
    for line in ({"jsonrpc": "2.0", "id": 3, "result": {}},
                 {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": f'"{lane_id}"'}},
                 {"jsonrpc": "2.0", "id": lane_id, "method": "ping"},
                 {"jsonrpc": "2.0", "id": lane_id, "result": "not an object"}):
        assert not wire.lane.take_line(json.dumps(line).encode())
    assert not wire.lane.take_line(json.dumps({"jsonrpc": "2.0", "id": lane_id, "result": {}}).encode()[:-3])
    assert not call.done()
    assert wire.lane.take_line(json.dumps({"jsonrpc": "2.0", "id": lane_id, "result": {
        "content": [{"type": "text", "text": "über"}], "structuredContent": {"text": "über"}}}).encode())
    result = await call
    assert _text(result) == "über" and result.structured_content == {"text": "über"}
    assert session.validated == ["echo"]
    # An error answer is the call's MCPError; a late answer to a call given up is dropped here.
    failing = asyncio.ensure_future(wire.lane.call_tool("echo", {}))
    await asyncio.sleep(0)
    assert wire.lane.take_line(json.dumps({"jsonrpc": "2.0", "id": wire.sent()["id"],
                                           "error": {"code": -32602, "message": "no"}}).encode())
    with pytest.raises(MCPError) as caught:
        await failing
    assert caught.value.code == -32602
    given_up = asyncio.ensure_future(wire.lane.call_tool("hang", {}))
    await asyncio.sleep(0)
    given_up_id = wire.sent()["id"]
    given_up.cancel()
    await asyncio.sleep(0.01)
    assert wire.sent()["method"] == "notifications/cancelled" and wire.sent()["params"]["requestId"] == given_up_id
    assert wire.lane.take_line(json.dumps({"jsonrpc": "2.0", "id": given_up_id, "result": {"content": []}}).encode())
    # A request plain JSON cannot spell (a lone surrogate) goes the SDK's way, through the session's stream.
    odd = asyncio.ensure_future(wire.lane.call_tool("echo", {"text": "\udcff"}))
    message = (await wire.session_sent.receive()).message
    assert isinstance(message, types.JSONRPCRequest) and message.params is not None
    assert message.params["arguments"] == {"text": "\udcff"}
    wire.lane.end()  # the server's stream ended: what waits fails
    with pytest.raises(MCPError) as caught:
        await odd
    assert caught.value.code == types.CONNECTION_CLOSED


async def test_a_long_answer_read_in_many_pieces_reaches_the_call_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # On Echo Desk's own transport the lane is on the wire: nothing pumps a stream for it.
    monkeypatch.setattr(CallLane, "pump", _refuse)
    conn = _connection(everything_config())
    await conn.start()
    try:
        assert conn.calls_past_the_session
        assert "echo" in {t.name for t in await conn.list_tools()}
        message = "漢字 über " * 40_000  # ~600 KB on the wire: many reads of the server's stdout
        result = await conn.call_tool("echo", {"message": message})
        assert _text(result) == f"Echo: {message}"
    finally:
        await conn.close()


async def test_an_sdk_without_what_the_transport_borrows_gets_its_own_transport_with_the_lane_behind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp.client.stdio as sdk_stdio

    import echo_desk.mcp.call_lane as call_lane

    monkeypatch.delattr(sdk_stdio, "_drain_stdout")
    pumped: list[CallLane] = []
    real_pump = call_lane.CallLane.pump

    async def pump(lane: CallLane) -> None:
        pumped.append(lane)
        await real_pump(lane)

    monkeypatch.setattr(call_lane.CallLane, "pump", pump)
    conn = _connection(everything_config())
    await conn.start()
    try:
        assert conn.calls_past_the_session and pumped  # the lane behind the SDK's transport
        assert "echo" in {t.name for t in await conn.list_tools()}
        assert _text(await conn.call_tool("echo", {"message": "hi"})) == "Echo: hi"
    finally:
        await conn.close()
