"""Fixtures for the gateway tests: an "app" (the real engine, real MCP servers, the gateway
service) and the command a client starts, ``echo-desk gateway --client NAME``.

The app here is the service on the engine without Qt; its person is a ``Person`` the test answers
(the real Qt dialog is in tests/ui/approval/test_gateway_dialog.py). Everything the clients see
comes from real parts: mcp-server-time (PyPI) and server-everything (npm) behind the engine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest
from echo_desk.gateway.service import GatewayService
from echo_desk.mcp.config import config_path, parse_server
from echo_desk.runtime import Runtime
from echo_desk.store.paths import config_dir, data_dir
from echo_desk.store.settings import GatewayClient, SettingsStore, ToolPolicy
from echo_desk.tools.host import NullToolHost
from tests.mcp.helpers import EVERYTHING, FAULT_SERVER, have_everything, time_server_command, wait_until

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = Path(__file__).parent / "node"
TS_CLIENT = Path(__file__).parent / "ts_client.mjs"

needs_everything = pytest.mark.skipif(not have_everything(), reason="run scripts/install-mcp-test-servers.sh")
needs_time = pytest.mark.skipif(time_server_command() is None, reason="pip install mcp-server-time")


def have_node_clients() -> bool:
    return (NODE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir() and shutil.which("node") is not None


needs_node_clients = pytest.mark.skipif(not have_node_clients(),
                                        reason="run scripts/install-gateway-test-clients.sh (npm SDK and Inspector)")

#: The tool every test may call without asking (its policy is "always allow").
AUTO = "time__get_current_time"
#: A tool that asks the person (an MCP tool's risk is exec).
ASKS = "everything__echo"


@dataclass
class Person(NullToolHost):
    """The person behind the app, driven by the test from any thread: each approval request
    waits until the test answers it (or the client withdraws it)."""

    requests: list[ApprovalRequest] = field(default_factory=list)
    withdrawn: list[ApprovalRequest] = field(default_factory=list)
    _answers: dict[str, concurrent.futures.Future[ApprovalChoice]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        answer: concurrent.futures.Future[ApprovalChoice] = concurrent.futures.Future()
        with self._lock:
            self._answers[request.call_id] = answer
            self.requests.append(request)
        try:
            choice = await asyncio.wrap_future(answer)
        except asyncio.CancelledError:
            self.withdrawn.append(request)
            raise
        return ApprovalDecision(call_id=request.call_id, choice=choice, binding=request.binding,
                                message="not now" if choice is ApprovalChoice.DENY else "")

    async def asked(self, count: int = 1, timeout: float = 30.0) -> ApprovalRequest:
        """The ``count``-th request, once it has come."""
        await wait_until(lambda: len(self.requests) >= count, timeout, f"approval request {count}")
        return self.requests[count - 1]

    def answer(self, request: ApprovalRequest, choice: ApprovalChoice) -> None:
        self._answers[request.call_id].set_result(choice)

    async def withdrawn_count(self, count: int, timeout: float = 30.0) -> None:
        await wait_until(lambda: len(self.withdrawn) >= count, timeout, f"{count} withdrawn request(s)")


@dataclass
class App:
    runtime: Runtime
    person: Person
    service: GatewayService

    def audit(self, **filters: Any) -> list[dict[str, Any]]:
        return self.runtime.audit.query(**filters)

    async def withdrawn_record(self, tool: str, timeout: float = 10.0) -> dict[str, Any]:
        """The newest audit record of ``tool``, once it is there. A withdrawn call is recorded as
        its task unwinds on the engine's thread, after ``Person`` has seen the withdrawal: what
        the test waited for comes first, the record just after."""
        rows = await wait_until(lambda: self.audit(tool=tool), timeout, f"the audit record of {tool}")
        return dict(rows[0])


def write_servers(*, time_server: bool = True, everything: bool = True, fault: bool = False) -> dict[str, Any]:
    """mcp.json with the real servers, each approved to start (as the person would have)."""
    servers: dict[str, Any] = {}
    command = time_server_command()
    if time_server and command is not None:
        servers["time"] = {"command": command[0], "args": command[1:]}
    if everything and have_everything():
        servers["everything"] = {"command": "node", "args": [str(EVERYTHING), "stdio"]}
    if fault:
        servers["fault"] = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    config_path().write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return servers


def approve_servers(store: SettingsStore, servers: dict[str, Any]) -> None:
    approved = {name: parse_server(name, entry).fingerprint() for name, entry in servers.items()}
    store.update(lambda s: s.mcp_approved.update(approved))


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path (a Unix socket's path must stay under 108 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="edg-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def gateway_env(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment a client starts the gateway with: this checkout, the test's folders, the
    test's socket, and never starting an app."""
    monkeypatch.setenv("ECHO_DESK_GATEWAY_SOCKET", str(short_dir / "gw.sock"))
    monkeypatch.setenv("ECHO_DESK_GATEWAY_START", "0")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def gateway_command(client: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "echo_desk", "gateway", "--client", client, *extra]


async def stop_process(process: asyncio.subprocess.Process, timeout: float = 15) -> None:
    """Close a client process's stdin (as a client that is done does) and wait; kill it if it
    does not end within ``timeout`` seconds."""
    if process.returncode is not None:
        return
    if process.stdin is not None and not process.stdin.is_closing():
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()


@pytest.fixture
def servers() -> dict[str, Any]:
    return write_servers()


@pytest.fixture
async def app(gateway_env: dict[str, str], servers: dict[str, Any]) -> AsyncIterator[App]:
    """The app: the engine (built-ins, MCP servers on their own thread), the gateway service on the
    MCP manager's loop, a person to answer."""
    store = SettingsStore.in_dir(config_dir())
    approve_servers(store, servers)
    store.set_tool(AUTO, policy=ToolPolicy.ALWAYS)
    runtime = Runtime.create(settings_store=store, data_dir=data_dir(), with_plugins=False)
    await runtime.attach_mcp(wait=True)
    person = Person()
    service = GatewayService(runtime, person, keepalive=0.2)
    assert runtime.mcp is not None
    service.start_on(runtime.mcp.loop)
    try:
        yield App(runtime, person, service)
    finally:
        await service.shutdown()
        await runtime.aclose()


def allow_builtins(store: SettingsStore, client: str, **fields: Any) -> None:
    store.update(lambda s: setattr(s.gateway, "clients",
                                   {**s.gateway.clients, client: GatewayClient(builtins=True, **fields)}))
