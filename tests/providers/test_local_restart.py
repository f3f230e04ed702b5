"""LocalModel's restart-and-retry rule, with the server and the HTTP transport faked."""

from __future__ import annotations

import functools
from pathlib import Path

import httpx
import pytest
from providers_kit import Scripted, collect, fixture_bytes, sse_response

from echo_desk.agent.model import ChatMessage, ModelError, StreamEnd
from echo_desk.providers.local import provider as local_provider
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel
from echo_desk.providers.local.server import ServerInfo

HELLO = [ChatMessage(role="user", content="hi")]


class FakeServer:
    """Stands in for LlamaServer: ``crash()`` makes it dead until the next ``start()``."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.alive = False
        self.starts = 0

    @property
    def running(self) -> bool:
        return self.alive

    async def start(self) -> ServerInfo:
        self.starts += 1
        self.pid = 1000 + self.starts
        self.alive = True
        return ServerInfo(url="http://127.0.0.1:9/v1", pid=self.pid, start_seconds=0.0)

    async def stop(self) -> None:
        self.alive = False

    def crash(self) -> None:
        self.alive = False


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> tuple[LocalModel, FakeServer, Scripted]:
    scripted = Scripted([sse_response(fixture_bytes("llamacpp_text.sse"))])
    monkeypatch.setattr(
        local_provider, "OpenAICompatModel",
        functools.partial(local_provider.OpenAICompatModel, transport=scripted.transport),
    )
    local = LocalModel(Path("model.gguf"), get_profile("qwen2.5-coder-tools"))
    server = FakeServer()
    local.server = server  # type: ignore[assignment]
    return local, server, scripted


async def test_a_dropped_first_request_after_a_crash_restart_is_sent_again(model) -> None:
    local, server, scripted = model
    await collect(local.stream(HELLO, []))
    server.crash()
    scripted.responses[:0] = [httpx.ReadError("connection dropped")]
    events = await collect(local.stream(HELLO, []))
    assert isinstance(events[-1], StreamEnd)
    assert server.starts == 2 and len(scripted.requests) == 3


async def test_a_settled_server_that_drops_a_request_is_reported_not_retried(model) -> None:
    local, server, scripted = model
    await collect(local.stream(HELLO, []))
    scripted.responses[:0] = [httpx.ReadError("connection dropped")]
    with pytest.raises(ModelError, match="broke off before the answer was complete"):
        await collect(local.stream(HELLO, []))
    assert server.starts == 1 and len(scripted.requests) == 2
