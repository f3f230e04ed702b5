"""The gateway answers the plain requests of the handshake era by hand and leaves the rest to the
SDK's server (``handshake``). Here every session of a corpus runs twice against the same app: as
served (hand, then the SDK from the first line the hand path does not take) and with the SDK
serving it whole (``ECHO_DESK_GATEWAY_SDK=1``), both in the gateway process (the handoff off), and
a third time handed to the app (``handoff``), which serves it the same way. The answers must be
the same JSON. Which path served is checked from outside: the SDK's models load pydantic's native
library, which shows in the gateway process's memory map."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import AUTO, App, gateway_command, needs_time, stop_process

pytestmark = [needs_time]


def initialize(version: str = "2025-06-18", request_id: Any = 1) -> dict[str, Any]:
    return {"id": request_id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}},
                       "clientInfo": {"name": "corpus", "version": "1"}}}


INITIALIZED = {"method": "notifications/initialized"}
NOW = {"name": AUTO, "arguments": {"timezone": "UTC"}}

#: Sessions the hand path serves whole.
PLAIN: dict[str, list[dict[str, Any]]] = {
    "a client's usual session": [initialize(), INITIALIZED, {"id": 2, "method": "tools/list"},
                                 {"id": 3, "method": "tools/call", "params": NOW},
                                 {"id": "p", "method": "tools/call", "params": {**NOW, "_meta": {"progressToken": 5}}},
                                 {"id": 4, "method": "ping"}, {"id": 5, "method": "tools/list", "params": {"cursor": "x"}},
                                 {"id": 6, "method": "tools/call", "params": {"name": "nope__nothing", "arguments": {}}},
                                 {"id": 7, "method": "tools/call", "params": {"name": AUTO, "arguments": {"timezone": 3}}}],
    "the oldest version": [initialize("2024-11-05"), INITIALIZED, {"id": 2, "method": "tools/list"}],
    "a version nobody knows": [initialize("1999-01-01")],
    "a 2026 version asked by handshake": [initialize("2026-07-28", request_id="s")],
    "requests before initialized": [initialize(), {"id": 2, "method": "ping"}, {"id": 3, "method": "tools/list"}],
}

#: Sessions that reach the SDK, from their first line or later.
HANDED: dict[str, list[dict[str, Any]]] = {
    "other methods after the handshake": [
        initialize(), INITIALIZED, {"id": 2, "method": "tools/call", "params": NOW},
        {"id": 3, "method": "resources/list"}, {"id": 4, "method": "prompts/list", "params": {}},
        {"id": 5, "method": "logging/setLevel", "params": {"level": "info"}},
        {"id": 6, "method": "completion/complete", "params": {}}, {"id": 7, "method": "foo/bar"},
        {"id": 8, "method": "tools/call", "params": {}},
        {"id": 9, "method": "tools/call", "params": {"name": AUTO, "arguments": [1]}},
        {"id": 10, "method": "tools/call", "params": {**NOW, "task": {}}},
        {"id": 11, "method": "tools/list"}, {"id": 12, "method": "tools/call", "params": NOW},
        initialize(request_id=13), {"id": 14, "method": "ping"}],
    "a call before initialized": [initialize(), {"id": 2, "method": "tools/call", "params": NOW},
                                  INITIALIZED, {"id": 3, "method": "ping"}],
    "no initialize": [{"id": 1, "method": "tools/list"}, {"id": 2, "method": "ping"}],
    "an initialize without params": [{"id": 1, "method": "initialize"}, {"id": 2, "method": "ping"}],
    "an initialize with a bad version": [{"id": 1, "method": "initialize", "params": {"protocolVersion": 5}}],
    "an initialize without client info": [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}],
}


class Session:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, env: dict[str, str]) -> Session:
        command = gateway_command("cursor")
        return cls(await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                        stdout=asyncio.subprocess.PIPE, env=env))

    async def play(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each request's answer, in order; notifications are sent without waiting."""
        assert self.process.stdin is not None and self.process.stdout is not None
        answers = []
        for message in messages:
            self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
            await self.process.stdin.drain()
            if "id" not in message:
                continue
            while True:
                line = await asyncio.wait_for(self.process.stdout.readline(), 30)
                assert line, "the gateway ended"
                answer = json.loads(line)
                if "id" in answer:  # progress notifications are not compared: they come as the app sends them
                    assert answer["id"] == message["id"], (message, answer)
                    answers.append(_comparable(answer))
                    break
        return answers

    def loaded_sdk(self) -> bool:
        return "pydantic_core" in Path(f"/proc/{self.process.pid}/maps").read_text()

    async def close(self) -> None:
        await stop_process(self.process)


def _comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """The current time differs from one run to the next: the time server's answer is kept in
    shape only."""
    result = answer.get("result")
    if isinstance(result, dict) and isinstance(result.get("structuredContent"), dict) \
            and "datetime" in result["structuredContent"]:
        return {**answer, "result": {**result, "content": "(the time)", "structuredContent": "(the time)"}}
    return answer


async def _both(env: dict[str, str], messages: list[dict[str, Any]]) -> tuple[list[Any], list[Any], bool, bool]:
    relaying = {**env, "ECHO_DESK_GATEWAY_HANDOFF": "0"}
    served, whole = await Session.start(relaying), await Session.start({**relaying, "ECHO_DESK_GATEWAY_SDK": "1"})
    in_app = await Session.start(env)
    try:
        mine, sdks, apps = await served.play(messages), await whole.play(messages), await in_app.play(messages)
        assert apps == mine  # the app serves a handed session as the gateway would have
        return mine, sdks, served.loaded_sdk(), whole.loaded_sdk()
    finally:
        await served.close()
        await whole.close()
        await in_app.close()


@pytest.mark.parametrize("name", sorted(PLAIN))
async def test_a_plain_session_is_answered_by_hand_as_the_sdk_answers_it(
        app: App, gateway_env: dict[str, str], name: str) -> None:
    mine, sdks, hand_loaded, sdk_loaded = await _both(gateway_env, PLAIN[name])
    assert mine == sdks
    assert not hand_loaded and sdk_loaded


@pytest.mark.parametrize("name", sorted(HANDED))
async def test_a_session_the_hand_path_leaves_is_answered_as_the_sdk_answers_it(
        app: App, gateway_env: dict[str, str], name: str) -> None:
    mine, sdks, hand_loaded, _ = await _both(gateway_env, HANDED[name])
    assert mine == sdks
    assert hand_loaded


async def test_the_corpus_asks_what_it_claims() -> None:
    """Each handed session holds a request the hand path does not take (else it proves nothing)."""
    from echo_desk.gateway.handshake import HandServed

    for name, messages in HANDED.items():
        hand = HandServed(_NoBackend())
        hand.attach(_discard, lambda _exc: None)
        taken = [hand.take(json.dumps({"jsonrpc": "2.0", **m}).encode()) for m in messages]
        await hand.aclose()
        assert not all(taken), name


class _NoBackend:
    async def list_tools(self) -> list[dict[str, Any]]:
        return []

    async def call(self, name: str, arguments: dict[str, Any], progress: Any) -> dict[str, Any]:
        return {}


async def _discard(_data: bytes) -> None:
    return None
