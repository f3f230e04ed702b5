"""Which lines the gateway answers itself (plain tools/call of a handshake-era session) and which
go to the SDK; progress and cancellation of the ones it takes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from echo_desk.gateway.fast_calls import FastCalls
from tests.mcp.helpers import wait_until


class Backend:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.release = asyncio.Event()
        self.cancelled = 0

    async def list_tools(self) -> list[dict[str, Any]]:
        return []

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


INIT = line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def call(request_id: Any = 1, **params: Any) -> bytes:
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "t", **params}})


def ready(backend: Backend) -> tuple[FastCalls, list[dict[str, Any]]]:
    fast = FastCalls(backend)
    written: list[dict[str, Any]] = []

    async def write(data: bytes) -> None:
        written.append(json.loads(data))

    fast.attach(write, lambda exc: None)
    return fast, written


async def test_only_plain_calls_after_the_handshake_are_taken() -> None:
    fast, _ = ready(Backend())
    assert not fast.take(call(1))  # before initialize: the SDK's pre-handshake rules apply
    assert not fast.take(INIT) and not fast.take(INITIALIZED)
    assert fast.take(call(2, arguments={"a": 1}))
    assert fast.take(call(3, _meta={"progressToken": "p"}))
    for other in (call(4, task={"ttl": 1}), call(5, _meta={"progressToken": "p", "x": 1}), call(6, arguments=[1]),
                  call(True), call(None), call(2),  # a bool id, no id, an id still running
                  line({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}), b"not json",
                  line({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"arguments": {}}})):
        assert not fast.take(other), other  # the SDK answers these (or its errors)
    await fast.aclose()


async def test_a_2026_era_session_is_left_to_the_sdk() -> None:
    fast, _ = ready(Backend())
    modern = line({"jsonrpc": "2.0", "id": 0, "method": "server/discover",
                   "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
    assert not fast.take(modern) and not fast.take(INITIALIZED)
    assert not fast.take(call(1))


async def test_answer_progress_and_cancel() -> None:
    backend = Backend()
    fast, written = ready(backend)
    fast.take(INIT)
    fast.take(INITIALIZED)
    assert fast.take(call(1, arguments={"x": 1}, _meta={"progressToken": 9}))
    assert fast.take(call(2))
    await wait_until(lambda: len(backend.calls) == 2, 5, "both calls")
    assert written[0] == {"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": 9, "progress": 1, "message": "Waiting"}}
    assert fast.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}))
    assert not fast.take(line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}))
    await wait_until(lambda: backend.cancelled == 1, 5, "the cancel")
    backend.release.set()
    await wait_until(lambda: any(m.get("id") == 1 for m in written), 5, "the answer")
    answer = next(m for m in written if m.get("id") == 1)
    assert answer["result"]["content"][0]["text"] == "did t" and answer["jsonrpc"] == "2.0"
    assert not any(m.get("id") == 2 for m in written)  # a withdrawn call gets no answer
    await fast.aclose()
