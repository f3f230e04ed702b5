"""What the gateway serves by hand (the plain requests of a handshake-era session) and what it
leaves to the SDK; the hand-over; progress and cancellation of the calls it runs."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from echo_desk.gateway.handshake import HANDSHAKE_VERSIONS, HandServed
from tests.mcp.helpers import wait_until


class Backend:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.release = asyncio.Event()
        self.cancelled = 0
        self.tools: list[dict[str, Any]] | Exception = [{"name": "t", "inputSchema": {"type": "object"}}]

    async def list_tools(self) -> list[dict[str, Any]]:
        if isinstance(self.tools, Exception):
            raise self.tools
        return self.tools

    async def call(self, name: str, arguments: dict[str, Any], progress: Any) -> dict[str, Any]:
        self.calls.append((name, arguments))
        if progress is not None:
            await progress("Waiting")
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return {"content": [{"type": "text", "text": f"did {name}"}], "isError": False}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def initialize(version: object = "2025-06-18", request_id: object = 0, **params: Any) -> bytes:
    return line({"jsonrpc": "2.0", "id": request_id, "method": "initialize",
                 "params": {"protocolVersion": version, "capabilities": {"roots": {}},
                            "clientInfo": {"name": "c", "version": "1"}, **params}})


INIT = initialize()
INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def request(request_id: Any, method: str, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return line(message if params is None else {**message, "params": params})


def call(request_id: Any = 1, **params: Any) -> bytes:
    return request(request_id, "tools/call", {"name": "t", **params})


class Written(list[dict[str, Any]]):
    def answer(self, request_id: Any) -> dict[str, Any]:
        return next(m for m in self if m.get("id") == request_id)


def ready(backend: Backend, *opening: bytes) -> tuple[HandServed, Written]:
    hand = HandServed(backend)
    written = Written()

    async def write(data: bytes) -> None:
        written.append(json.loads(data))

    hand.attach(write, lambda exc: None)
    for message in opening:
        assert hand.take(message), message
    return hand, written


def test_the_versions_offered_are_the_sdks() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


async def test_initialize_is_answered_with_the_version_asked_or_the_newest() -> None:
    for asked, agreed in [("2024-11-05", "2024-11-05"), ("2025-11-25", "2025-11-25"),
                          ("2026-07-28", HANDSHAKE_VERSIONS[-1]), ("1999-01-01", HANDSHAKE_VERSIONS[-1])]:
        hand, written = ready(Backend(), initialize(asked, request_id="i"))
        await wait_until(lambda written=written: len(written) == 1, 5, "the answer")  # type: ignore[misc]
        result = written.answer("i")["result"]
        assert result["protocolVersion"] == agreed
        assert result["capabilities"] == {"tools": {"listChanged": True}} and result["serverInfo"]["name"] == "echo-desk"
        await hand.aclose()


async def test_a_session_that_opens_otherwise_is_the_sdks_from_its_first_line() -> None:
    modern = request(0, "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    for first in (modern, request(0, "tools/list"), request(0, "ping"), INITIALIZED,
                  initialize(5), initialize(request_id=True), initialize(capabilities=[]),
                  line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
                  initialize(extra=1)):
        hand, written = ready(Backend())
        assert not hand.take(first), first
        assert hand.mine is False
        for later in (INIT, INITIALIZED, call(1), request(2, "ping")):
            assert not hand.take(later)
        assert written == []


async def test_a_line_that_is_not_json_rpc_decides_nothing() -> None:
    hand, _ = ready(Backend())
    for junk in (b"not json", b"[1, 2]", line({"id": 1, "method": "initialize"})):
        assert not hand.take(junk)
    assert hand.mine is None
    assert hand.take(INIT)


async def test_only_plain_requests_are_taken() -> None:
    backend = Backend()
    hand, written = ready(backend, INIT)
    assert not hand.take(call(1))  # before notifications/initialized: the SDK's rules apply
    hand, written = ready(backend, INIT, INITIALIZED)
    for plain in (request(1, "ping"), request(2, "ping", {"_meta": {"k": 1}}), request(3, "tools/list"),
                  request(4, "tools/list", {"cursor": "next"}), call(5, arguments={"a": 1}),
                  call(6, _meta={"progressToken": "p"})):
        assert hand.take(plain), plain
    for other in (call(7, task={"ttl": 1}), call(8, _meta={"progressToken": "p", "x": 1}), call(9, arguments=[1]),
                  call(True), call(None),  # a bool id, no id
                  call(10, _meta={"progressToken": True}),
                  request(11, "tools/call", {"arguments": {}}), request(12, "resources/list"),
                  request(13, "ping", {"x": 1}), request(14, "tools/list", {"cursor": 3}),
                  request(15, "logging/setLevel", {"level": "info"})):
        assert not hand.take(other), other  # the SDK answers these (or its errors)
    # An id still under way (calls 5 and 6 wait) names one request: another request of it, of any
    # method and "5" for 5 too, is refused here, never handed to the SDK (a cancel of it would
    # withdraw the one the SDK did not mean).
    for reused in (call(5), call("5"), request(6, "resources/list"), request(5, "ping")):
        assert hand.take(reused), reused
    assert not hand.handed_over
    await wait_until(lambda: len([m for m in written if "error" in m]) == 4, 5, "the refusals")
    assert [arguments for _name, arguments in backend.calls] == [{"a": 1}, {}]  # only the first of each id
    assert [(m["id"], m["error"]["code"]) for m in written if "error" in m] == [(5, -32600), ("5", -32600),
                                                                                 (6, -32600), (5, -32600)]
    await wait_until(lambda: {m.get("id") for m in written} >= {1, 2, 3, 4}, 5, "the answers")
    assert written.answer(1)["result"] == {} and written.answer(4)["result"] == {"tools": backend.tools}
    await hand.aclose()


async def test_hand_over_gives_the_sdk_the_handshake_and_keeps_the_calls_running_here() -> None:
    backend = Backend()
    hand, _ = ready(backend, initialize(request_id="start"), INITIALIZED, call(1))
    await wait_until(lambda: len(backend.calls) == 1, 5, "the call")
    assert not hand.take(request(2, "resources/list"))
    assert hand.hand_over() == [initialize(request_id="start"), INITIALIZED]
    assert hand.replayed_id == "start"
    assert not hand.take(call(3)) and not hand.take(request(4, "ping"))  # the SDK's now
    assert hand.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
    assert not hand.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}))
    await wait_until(lambda: backend.cancelled == 1, 5, "the cancel")
    await hand.aclose()


async def test_answer_progress_and_cancel() -> None:
    backend = Backend()
    hand, written = ready(backend, INIT, INITIALIZED)
    assert hand.take(call(1, arguments={"x": 1}, _meta={"progressToken": 9}))
    assert hand.take(call(2))
    await wait_until(lambda: len(backend.calls) == 2, 5, "both calls")
    await wait_until(lambda: any(m.get("method") == "notifications/progress" for m in written), 5, "progress")
    assert {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 9, "progress": 1, "message": "Waiting"}} in written
    assert hand.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}))
    # A cancel for a request no longer running is nothing to do, and the SDK has none of this session's.
    assert hand.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}))
    await wait_until(lambda: backend.cancelled == 1, 5, "the cancel")
    backend.release.set()
    await wait_until(lambda: any(m.get("id") == 1 for m in written), 5, "the answer")
    answer = written.answer(1)
    assert answer["result"]["content"][0]["text"] == "did t" and answer["jsonrpc"] == "2.0"
    assert not any(m.get("id") == 2 for m in written)  # a withdrawn call gets no answer
    await hand.aclose()


async def test_a_listing_that_fails_is_answered_with_an_error_and_the_session_goes_on() -> None:
    backend = Backend()
    backend.tools = RuntimeError("the app said no")
    hand, written = ready(backend, INIT, INITIALIZED, request(1, "tools/list"))
    await wait_until(lambda: any(m.get("id") == 1 for m in written), 5, "the answer")
    assert written.answer(1)["error"] == {"code": -32603, "message": "the app said no"}
    assert hand.take(request(2, "ping"))
    await hand.aclose()


async def test_the_tools_changed_notice_goes_to_a_client_that_listed_them() -> None:
    hand, written = ready(Backend(), INIT, INITIALIZED)
    hand.tools_changed()
    await asyncio.sleep(0)
    assert not any(m.get("method") == "notifications/tools/list_changed" for m in written)
    assert hand.take(request(1, "tools/list"))
    hand.tools_changed()
    await wait_until(lambda: any(m.get("method") == "notifications/tools/list_changed" for m in written), 5,
                     "the notice")
    await hand.aclose()


#: A request whose params nest past what Python's JSON parser reads (it raises RecursionError,
#: not ValueError): before it was caught, one such line ended the client's session.
TOO_DEEP = b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":' + b"[" * 200_000 + b"]" * 200_000 + b"}}"


async def test_a_line_nested_too_deeply_is_not_taken_and_is_answered_as_unreadable() -> None:
    from echo_desk.gateway.protocol import ProtocolError, decode
    from echo_desk.gateway.stdio import PARSE_ERROR, not_jsonrpc

    hand, _ = ready(Backend(), INIT, INITIALIZED)
    assert not hand.take(TOO_DEEP)
    answer = json.loads(not_jsonrpc(TOO_DEEP) or b"{}")
    assert answer["id"] == 5 and answer["error"]["code"] == PARSE_ERROR
    assert hand.take(request(6, "ping"))  # the session goes on
    try:
        decode(TOO_DEEP)
    except ProtocolError:
        pass  # the app's side of the socket says so and closes that connection, as for any bad line
    else:
        raise AssertionError("decode read a line nested too deeply")
    await hand.aclose()
