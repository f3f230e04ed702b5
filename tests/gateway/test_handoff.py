"""The gateway hands its client's pipes to the running app (``handoff``, ``handed``): the app serves
the session on them, the gateway keeps no copy; whoever goes away first, the other side sees it
at once; what is not a client's pipe is refused unread and the gateway relays as before."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import tempfile
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice
from echo_desk.gateway import protocol
from echo_desk.gateway.protocol import LineWriter, read_message
from tests.mcp.helpers import wait_until

from .conftest import ASKS, AUTO, App, gateway_command, needs_everything, needs_time, stop_process

pytestmark = [needs_time]

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def start(client: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(*gateway_command(client), stdin=asyncio.subprocess.PIPE,
                                                   stdout=asyncio.subprocess.PIPE, env=env)
    await send(process, INITIALIZE)
    assert "result" in await receive(process)
    await send(process, INITIALIZED)
    return process


async def send(process: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    await process.stdin.drain()


async def receive(process: asyncio.subprocess.Process, timeout: float = 30) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = await asyncio.wait_for(process.stdout.readline(), timeout)
        assert line, "the gateway's output ended"
        message = json.loads(line)
        if "id" in message:
            return message


def call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def holds_a_pipe(process: asyncio.subprocess.Process) -> bool:
    """Whether the gateway process holds, at any fd, one of the pipes its client talks to it on."""
    assert process.stdin is not None and process.stdout is not None
    ours = {os.fstat(end.get_extra_info("pipe").fileno()).st_ino
            for end in (process.stdin.transport, process.stdout._transport)}  # type: ignore[attr-defined]
    links = (os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{process.pid}/fd"))
    return any(link in {f"pipe:[{inode}]" for inode in ours} for link in links)


async def let_go(process: asyncio.subprocess.Process) -> None:
    """Wait until the gateway holds none of its client's pipes. The app serves the session as soon
    as it has the fds and says it took them, so its first answer can reach the client before the
    gateway has read that and put /dev/null and stderr on its fds 0 and 1."""
    await wait_until(lambda: not holds_a_pipe(process), 10, "the gateway letting go of its client's pipes")


async def test_the_app_serves_the_clients_pipes_and_the_gateway_keeps_none(app: App, gateway_env: dict[str, str]) -> None:
    process = await start("cursor", gateway_env)
    try:
        await send(process, call(2, AUTO, {"timezone": "UTC"}))
        answer = await receive(process)
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        await let_go(process)  # its fd 0 reads /dev/null, its fd 1 is its stderr
        assert [c["client"] for c in app.service.clients()] == ["cursor"]
        assert [r["client"] for r in app.audit(tool=AUTO)] == ["cursor"]
    finally:
        await stop_process(process)
    assert process.returncode == 0  # the client closed its input: the app ended the session, the gateway exits


async def test_with_the_handoff_off_the_gateway_relays(app: App, gateway_env: dict[str, str]) -> None:
    process = await start("cursor", {**gateway_env, "ECHO_DESK_GATEWAY_HANDOFF": "0"})
    try:
        await send(process, call(2, AUTO, {"timezone": "UTC"}))
        answer = await receive(process)
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        assert holds_a_pipe(process)
    finally:
        await stop_process(process)


@needs_everything
async def test_the_gateway_killed_withdraws_its_waiting_call_and_ends_the_clients_pipes(
        app: App, gateway_env: dict[str, str]) -> None:
    process = await start("cursor", gateway_env)
    try:
        await send(process, call(2, ASKS, {"message": "x"}))
        await app.person.asked()
        process.send_signal(signal.SIGKILL)  # as a client kills a server it gives up on
        await app.person.withdrawn_count(1, timeout=10)
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.read(), 10) == b""  # the app let go of the pipes
    finally:
        await stop_process(process)


@needs_everything
async def test_a_handed_call_the_person_allows_is_answered_on_the_clients_pipe(
        app: App, gateway_env: dict[str, str]) -> None:
    process = await start("cursor", gateway_env)
    try:
        await send(process, call(2, ASKS, {"message": "handed"}))
        app.person.answer(await app.person.asked(), ApprovalChoice.ALLOW_ONCE)
        answer = await receive(process)
        assert answer["id"] == 2 and "handed" in json.dumps(answer["result"])
    finally:
        await stop_process(process)


@pytest.mark.parametrize("app_says", ["refused", "nothing"])
async def test_after_the_fds_are_sent_only_a_refusal_lets_the_gateway_read_them(
        gateway_env: dict[str, str], short_dir: Path, app_says: str) -> None:
    """An app that refuses the fds closed them unread: the gateway serves the client itself. One
    that says nothing may be reading them: the gateway never does, it ends (fails closed)."""
    hellos: list[dict[str, Any]] = []

    async def fake_app(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        out = LineWriter(writer)
        hello = await read_message(reader)
        assert hello is not None
        hellos.append(hello)
        if not hello.get("handoff"):  # the gateway's own session afterwards: no app here after all
            await out.send(protocol.error("gone"))
            writer.close()
            return
        writer.transport.pause_reading()  # type: ignore[attr-defined]  # as the app: the byte is read below
        await out.send({"type": "welcome", "version": protocol.PROTOCOL_VERSION, "handoff": True})
        sock = writer.get_extra_info("socket")
        await asyncio.sleep(0.2)  # the byte with the fds has come: read here without them (so closed)
        with socket.socket(fileno=os.dup(sock.fileno())) as dup:
            assert dup.recv(1) == b"F"
        if app_says == "refused":
            await out.send({"type": "refused", "error": "not today"})
        writer.close()

    server = await asyncio.start_unix_server(fake_app, path=str(short_dir / "gw.sock"))
    process = await asyncio.create_subprocess_exec(*gateway_command("cursor"), stdin=asyncio.subprocess.PIPE,
                                                   stdout=asyncio.subprocess.PIPE, env=gateway_env)
    try:
        assert process.stdout is not None
        if app_says == "refused":
            await send(process, INITIALIZE)
            assert (await receive(process))["result"]["serverInfo"]["name"] == "echo-desk"
            assert holds_a_pipe(process)
        else:
            assert await asyncio.wait_for(process.stdout.read(), 15) == b""
            assert await asyncio.wait_for(process.wait(), 15) == 1
            assert len(hellos) == 1  # it did not go on to serve (and read) the pipes itself
    finally:
        await stop_process(process)
        server.close()


async def _handshake(app: App) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_unix_connection(str(app.service.path), limit=protocol.MAX_LINE_BYTES)
    await LineWriter(writer).send({"type": "hello", "version": protocol.PROTOCOL_VERSION, "client": "cursor",
                                   "workspace": "", "transport": "stdio", "handoff": True})
    welcome = await read_message(reader)
    assert welcome is not None and welcome["type"] == "welcome" and welcome["handoff"] is True
    return reader, writer


@pytest.mark.parametrize("what", ["a file", "one fd", "no fd"])
async def test_what_is_not_a_clients_two_pipes_is_refused_and_closed(app: App, what: str) -> None:
    reader, writer = await _handshake(app)
    with tempfile.TemporaryFile() as file:
        read_end, write_end = os.pipe()
        fds = {"a file": [file.fileno(), write_end], "one fd": [read_end], "no fd": []}[what]
        with socket.socket(fileno=os.dup(writer.get_extra_info("socket").fileno())) as sock:
            socket.send_fds(sock, [b"F"], fds) if fds else sock.send(b"F")
        answer = await asyncio.wait_for(read_message(reader), 10)
        assert answer is not None and answer["type"] == "refused", answer
        assert app.service.clients() == []
        os.close(write_end)
        assert os.read(read_end, 1) == b""  # the app kept no copy of the write end
        os.close(read_end)
    writer.close()
