"""Helpers for the provider tests: recorded payloads, a scripted httpx transport, a fake sleep."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from echo_desk.agent.model import StreamEvent

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def sse_response(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, content=body, headers={"content-type": "text/event-stream", **(headers or {})})


@dataclass
class Scripted:
    """An ``httpx.MockTransport`` that answers with the queued responses, in order, and records requests."""

    responses: list[httpx.Response | Exception]
    requests: list[httpx.Request] = field(default_factory=list)

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(item, Exception):
            raise item
        return item

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


class RecordingSleep:
    """An injectable sleep that returns at once and remembers the delays asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


async def collect(stream: Any) -> list[StreamEvent]:
    return [event async for event in stream]


