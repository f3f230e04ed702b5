"""Fixtures for the MCP tests: a manager factory that always closes, and a process mark."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from echo_desk.mcp import McpManager
from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.store.settings import SettingsStore
from tests.mcp.helpers import EVERYTHING, FAULT_SERVER, MARK, TestRegistry, have_everything

needs_everything = pytest.mark.skipif(
    not have_everything(), reason="run scripts/install-mcp-test-servers.sh (npm server-everything)"
)


@pytest.fixture
def mark() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def registry() -> TestRegistry:
    return TestRegistry()


@pytest.fixture
def settings_store() -> SettingsStore:
    return SettingsStore.in_memory()


def everything_config(name: str = "ev", **extra: Any) -> ServerConfig:
    return parse_server(name, {"command": "node", "args": [str(EVERYTHING), "stdio"], **extra})


def fault_config(name: str = "f", env: dict[str, str] | None = None, **extra: Any) -> ServerConfig:
    return parse_server(name, {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": env or {}, **extra})


@pytest.fixture(params=["own-thread", "shared-loop"])
async def make_manager(
    request: pytest.FixtureRequest, settings_store: SettingsStore, registry: TestRegistry, mark: str
) -> AsyncIterator[Callable[..., McpManager]]:
    """``make_manager(servers, approve=True, host=None)``: a manager closed after the test.

    Every test runs with the manager on its own thread (the app) and on the test's loop (the CLI).
    """
    made: list[McpManager] = []
    loop = asyncio.get_running_loop() if request.param == "shared-loop" else None

    def make(servers: dict[str, ServerConfig], *, approve: bool = True, host: Any = None) -> McpManager:
        manager = McpManager(
            settings_store, registry=registry, host=host, servers=servers, extra_env={MARK: mark}, loop=loop
        )
        if approve:
            for name in servers:
                start = manager.start_request(name)
                if start is not None:
                    manager.approve_start(name, start.fingerprint)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        await manager.aclose()
