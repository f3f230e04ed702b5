"""A call that comes while the app is quitting (the quit begun, not yet over) is not run: it is
answered at once that Echo Desk is quitting, whether the app serves the client's pipes itself
(handoff) or the gateway relays, and the quit is not waited for. A real gateway process, the
official Python SDK client; the quit is held half-way (where the HTTP gateway stops) while the
call is sent."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.mcp.helpers import wait_until

from .conftest import AUTO, App, needs_time
from .test_python_client import client_for, text_of

pytestmark = [needs_time]

#: The call's answer must come within this, the quit still held.
ANSWER_SECONDS = 10


@pytest.mark.parametrize("handoff", ["1", "0"], ids=["handed", "relayed"])
async def test_a_call_sent_during_the_quit_is_refused_at_once_saying_so(
        app: App, gateway_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, handoff: str) -> None:
    service = app.service
    begun, release = threading.Event(), threading.Event()
    stop_http = service.stop_http

    async def held_stop_http() -> None:
        # Past the quit's first steps (no new connection, the relayed calls withdrawn), before the
        # handed sessions are handed back or ended.
        begun.set()
        await asyncio.to_thread(release.wait, 30)
        await stop_http()

    async with client_for("cursor", {**gateway_env, "ECHO_DESK_GATEWAY_HANDOFF": handoff}) as client:
        await client.list_tools()
        await wait_until(lambda: service.clients(), 30, "the client connected to the app")
        monkeypatch.setattr(service, "stop_http", held_stop_http)
        quitting = asyncio.ensure_future(service.shutdown())
        try:
            await wait_until(begun.is_set, 30, "the quit to begin")
            # Before, the call ran (its rules allow it) as the app quit, after the quit had begun.
            result = await asyncio.wait_for(client.call_tool(AUTO, {"timezone": "UTC"}), ANSWER_SECONDS)
            assert not quitting.done()
        finally:
            release.set()
        await asyncio.wait_for(quitting, 30)
    assert result.is_error, text_of(result)
    assert f"Echo Desk is quitting, so this call of {AUTO} was not run" in text_of(result), text_of(result)
    # Nothing of it ran: the pipeline never saw it (a refusal at the door, as a malformed call's).
    assert not app.audit(tool=AUTO)
