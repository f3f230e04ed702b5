"""The private socket and the JSON-lines protocol, piece by piece (real sockets, no MCP)."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from pathlib import Path

import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.gateway import protocol
from echo_desk.gateway.local_socket import check_private, listening_socket, peer_uid
from echo_desk.gateway.relay import AppUnreachable, Relay, app_status
from echo_desk.gateway.service import GatewayService, workspace_of
from echo_desk.runtime import Runtime
from echo_desk.store.paths import data_dir


def test_the_socket_is_0600_in_a_0700_folder_and_a_stale_one_is_replaced(short_dir: Path) -> None:
    path = short_dir / "run" / "gw.sock"
    first = listening_socket(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    with pytest.raises(OSError, match="already listens"):
        listening_socket(path)  # a live app keeps its socket
    first.close()  # a crashed app leaves the file behind, nobody accepting
    listening_socket(path).close()


def test_a_socket_folder_others_can_enter_is_refused(short_dir: Path) -> None:
    folder = short_dir / "open"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    with pytest.raises(OSError, match="not a private folder"):
        check_private(folder)
    (short_dir / "file").write_text("x")
    with pytest.raises(OSError, match="is not a socket"):
        listening_socket(short_dir / "file")


def test_the_peer_is_known_by_the_kernel(short_dir: Path) -> None:
    server = listening_socket(short_dir / "gw.sock")
    server.setblocking(True)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(str(short_dir / "gw.sock"))
    accepted, _ = server.accept()
    try:
        assert peer_uid(accepted) == os.getuid() and peer_uid(client) == os.getuid()
    finally:
        for s in (accepted, client, server):
            s.close()


def test_workspace_must_be_a_real_folder_and_not_home_or_root(tmp_path: Path) -> None:
    assert workspace_of(str(tmp_path)) == tmp_path.resolve()
    for bad in ("", "relative/dir", "/", str(Path.home()), str(tmp_path / "missing"), 3):
        assert workspace_of(bad) is None


def test_a_folder_holding_the_home_folder_is_no_workspace_either(tmp_path: Path, monkeypatch) -> None:
    # "/home" (or "/Users") is neither "/" nor the home folder, but puts every file of the home
    # folder "in the workspace" just the same: its grants and @workspace rules would cover them.
    home = tmp_path / "home" / "me"
    (home / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for bad in (tmp_path / "home", tmp_path, home):
        assert workspace_of(str(bad)) is None, bad
    link = tmp_path / "link-to-home-parent"
    link.symlink_to(tmp_path / "home")
    assert workspace_of(str(link)) is None
    assert workspace_of(str(home / "project")) == (home / "project").resolve()


async def test_a_folder_of_echo_desks_own_or_holding_one_is_no_workspace(tmp_path: Path, monkeypatch) -> None:
    """A client started in ~/.config (a dotfiles project) or ~/.local had Echo Desk's settings
    (mcp.json with its servers' keys, the rules), data (the person's conversations, the audit
    log) or a keyring "in its workspace": with Echo Desk's own tools on, it read them unasked."""
    from echo_desk.agent.host import ScriptedHost
    from echo_desk.gateway.session import ClientSession
    from echo_desk.store.settings import SettingsStore

    from .conftest import allow_builtins

    home = tmp_path / "home"
    config, data = home / ".config" / "echo-desk", home / ".local" / "share" / "echo-desk"
    for folder in (config / "sub", data, home / "project", home / ".local" / "share" / "keyrings", home / ".cache"):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(config))
    monkeypatch.setenv("ECHO_DESK_DATA_DIR", str(data))
    monkeypatch.setenv("ECHO_DESK_CACHE_DIR", str(home / ".cache" / "echo-desk"))
    (data / "conversation.json").write_text("the person's own chat\n")
    store = SettingsStore.in_dir(config)
    allow_builtins(store, "zed")
    runtime = Runtime.create(settings_store=store, data_dir=data, with_plugins=False)
    person = ScriptedHost()  # denies whatever it is asked
    try:
        for bad in (config, data, data.parent, home / ".local", home / ".config", home / ".cache",
                    home / ".local" / "share" / "keyrings", config / "sub"):
            assert workspace_of(str(bad)) is None, bad
        session = ClientSession(runtime, person, "zed", workspace_of(str(home / ".local")))
        read = await session.call("read_file", {"path": str(data / "conversation.json")})
        assert read["isError"] and "own chat" not in str(read), read  # never read unasked
        assert workspace_of(str(home / "project")) == (home / "project").resolve()
    finally:
        runtime.close()


@pytest.fixture
async def service(gateway_env: dict[str, str]) -> GatewayService:
    runtime = Runtime.create(data_dir=data_dir(), with_plugins=False)
    svc = GatewayService(runtime, ScriptedHost())
    await svc.start()
    yield svc
    await svc.aclose()
    runtime.close()


async def _raw(service: GatewayService) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(str(service.path), limit=protocol.MAX_LINE_BYTES)


async def test_a_wrong_version_or_name_is_refused_with_the_reason(service: GatewayService) -> None:
    for hello, said in (({"type": "hello", "version": 99, "client": "cursor"}, "protocol 1"),
                        ({"type": "hello", "version": 1, "client": "Cursor App!"}, "not usable")):
        reader, writer = await _raw(service)
        writer.write(protocol.encode(hello))
        answer = await protocol.read_message(reader)
        assert answer is not None and answer["type"] == "error" and said in answer["error"]
        assert await reader.read() == b""  # and the connection is closed
        writer.close()
    with pytest.raises(AppUnreachable, match="refused"):
        await Relay.connect(service.path, "Cursor App!")


async def test_a_line_over_the_cap_or_not_json_ends_the_connection(service: GatewayService) -> None:
    relay = await Relay.connect(service.path, "cursor")
    await relay.aclose()
    reader, writer = await _raw(service)
    writer.write(protocol.encode({"type": "hello", "version": 1, "client": "cursor"}))
    assert (await protocol.read_message(reader) or {})["type"] == "welcome"
    writer.write(b"{not json\n")
    answer = await protocol.read_message(reader)
    assert answer is not None and "protocol error" in answer["error"]
    assert await reader.read() == b""
    writer.close()
    reader, writer = await _raw(service)
    writer.write(protocol.encode({"type": "hello", "version": 1, "client": "cursor"}))
    await protocol.read_message(reader)
    writer.write(b"x" * (protocol.MAX_LINE_BYTES + 10))  # no newline: more than a line may be
    async with asyncio.timeout(20):
        assert "over" in ((await protocol.read_message(reader)) or {}).get("error", "")
    writer.close()


async def test_status_and_an_app_that_is_not_there(service: GatewayService, short_dir: Path) -> None:
    relay = await Relay.connect(service.path, "zed")
    status = await app_status(service.path)
    assert [c["client"] for c in status["clients"]] == ["zed"]
    await relay.aclose()
    with pytest.raises(AppUnreachable, match="not running"):
        await app_status(short_dir / "nothing.sock")


async def test_the_app_going_away_fails_a_waiting_request_at_once(service: GatewayService) -> None:
    relay = await Relay.connect(service.path, "cursor")
    await service.aclose()  # the app quits; the connection closes
    async with asyncio.timeout(5):
        with pytest.raises(AppUnreachable):
            await relay.list_tools()
    await relay.aclose()


async def test_a_peer_that_never_reads_is_given_up(short_dir: Path) -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(3600)  # a peer that never reads

    server = await asyncio.start_unix_server(serve, str(short_dir / "s.sock"))
    _, writer = await asyncio.open_unix_connection(str(short_dir / "s.sock"))
    out = protocol.LineWriter(writer, deadline=0.5)
    with pytest.raises(ConnectionError, match="did not read"):
        async with asyncio.timeout(30):
            while True:
                await out.send({"type": "progress", "message": "x" * 65536})
    server.close()


async def test_status_asks_only_a_socket_the_relay_would_trust(short_dir: Path) -> None:
    # `echo-desk gateway status` must not report "Echo Desk is running" (and print what it
    # answered) for a socket in a folder others can enter, where anyone may have put it.
    folder = short_dir / "open"
    folder.mkdir()
    os.chmod(folder, 0o755)
    answered: list[bool] = []

    async def impostor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        answered.append(True)
        writer.write(b'{"type": "status", "id": 1, "app": "echo-desk 9", "clients": []}\n')
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(impostor, str(folder / "gw.sock"))
    try:
        with pytest.raises(AppUnreachable, match="not a private folder"):
            await app_status(folder / "gw.sock")
        with pytest.raises(AppUnreachable, match="not a private folder"):
            await Relay.connect(folder / "gw.sock", "zed")  # the same answer as the relay's
        assert not answered
    finally:
        server.close()


def test_a_client_name_that_reads_as_echo_desk_or_the_person_is_refused() -> None:
    """The name heads the client's dialogs, their window titles and the desktop notification:
    "echo-desk asks: approve Run a command?" reads as Echo Desk's own agent asking."""
    from echo_desk.gateway.clients import BadClientName, client_key

    for bad in ("echo-desk", "Echo_Desk", "echo.desk", "echodesk", "echo-desk-app", "you", "me", "user", "system"):
        with pytest.raises(BadClientName, match="Echo Desk itself or you"):
            client_key(bad)
    for good in ("cursor", "claude-code", "vscode", "my-echo", "desk"):
        assert client_key(good) == good
