"""After the hand-back the gateway starts its own engine and MCP servers: a call waits only for the
server of its own tool, never for a slower one; a list of the tools waits for a slow one only a
while (``fallback.LIST_WAIT_SECONDS``), then comes without its tools, and the client is told to
list again once it has started."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.helpers import EVERYTHING, time_server_command, wait_until

from .conftest import ASKS, AUTO, App, needs_everything, needs_time, stop_process
from .test_hand_back import NOT_RUNNING, text
from .test_handoff import call, send, start
from .test_handoff import let_go as handed_off

pytestmark = [needs_time, needs_everything]


@pytest.fixture
def gate(short_dir: Path) -> Path:
    """Where the test holds the slow server back: while a FIFO is there, the server waits on it
    before it starts (the app's own start, before the FIFO is made, is not held)."""
    return short_dir / "gate"


@pytest.fixture
def servers(gate: Path) -> dict[str, Any]:
    from echo_desk.mcp.config import config_path

    command = time_server_command()
    assert command is not None
    found = {"time": {"command": command[0], "args": command[1:]},
             "everything": {"command": "sh", "args": ["-c", '[ -p "$1" ] && read _ < "$1"; exec node "$2" stdio',
                                                      "sh", str(gate), str(EVERYTHING)]}}
    config_path().write_text(json.dumps({"mcpServers": found}), encoding="utf-8")
    return found


def open_gate(gate: Path) -> bool:
    """Let the held server start, if it waits on the gate now (``False``: nobody waits on it)."""
    try:
        fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # no reader yet
            return False
        raise
    try:
        os.write(fd, b"go\n")
    finally:
        os.close(fd)
    return True


async def test_a_call_does_not_wait_for_another_servers_start(app: App, gateway_env: dict[str, str], gate: Path) -> None:
    process = await start("cursor", gateway_env)
    try:
        await handed_off(process)
        os.mkfifo(gate)
        await app.service.shutdown()  # the gateway's engine starts both servers: "everything" is held
        await send(process, call(2, ASKS, {"message": "its server is held"}))
        await send(process, call(3, AUTO, {"timezone": "UTC"}))
        await send(process, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        # Before, every call waited for every server: nothing came until the held one's start
        # was given up (20 s), and then "everything" was gone for the rest of the session.
        answers: dict[int, dict[str, Any]] = {}
        told: list[str] = []

        async def take() -> None:
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, "the gateway's output ended"
            message = json.loads(line)
            if "id" in message:
                answers[message["id"]] = message
            else:
                told.append(str(message.get("method")))

        # Before, every call waited for every server: nothing came until the held one's start
        # was given up (20 s), and then "everything" was gone for the rest of the session.
        while not {3, 4} <= answers.keys():
            await take()
        assert answers[3]["result"].get("isError") is False, answers[3]
        listed = {tool["name"] for tool in answers[4]["result"]["tools"]}
        # The list did not wait for the held server. The time server's tools are in it when it
        # started within the list's 5 s (counted from the request, the engine's own start among
        # them); else the change is told with the held one's, below.
        assert ASKS not in listed
        # Answered while the other server is still held (its reader on the gate, not given up).
        await wait_until(lambda: open_gate(gate), 30, "the held server waiting on its gate")
        while 2 not in answers or "notifications/tools/list_changed" not in told:
            await take()
        assert NOT_RUNNING in text(answers[2]), answers[2]  # its own server started: then refused at once
        await send(process, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        while 5 not in answers:
            await take()
        assert {ASKS, AUTO} <= {tool["name"] for tool in answers[5]["result"]["tools"]}
    finally:
        with contextlib.suppress(OSError):
            open_gate(gate)
        await stop_process(process)
