"""The gateway's engine starts each MCP server on its own: waiting for one tool waits only for the
servers whose tool it may be; a list waits for them all; closing stops the starts under way."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from echo_desk.mcp.first_starts import FirstStarts
from tests.mcp.helpers import wait_until


@dataclass
class Config:
    enabled: bool = True


@dataclass
class Registry:
    names: set[str] = field(default_factory=set)

    def get(self, name: str) -> Any:
        return name if name in self.names else None


class Manager:
    """Starts a server only when the test lets it (``go``)."""

    def __init__(self, **enabled: bool) -> None:
        self.registry = Registry()
        self._configs = {name: Config(on) for name, on in enabled.items()}
        self.gates = {name: asyncio.Event() for name in enabled}
        self.started: list[str] = []
        self.begun: list[str] = []

    def configs(self) -> dict[str, Config]:
        return self._configs

    async def start(self, name: str) -> None:
        self.begun.append(name)
        await self.gates[name].wait()
        self.started.append(name)

    def go(self, name: str, *tools: str) -> None:
        self.registry.names.update(f"{name}__{tool}" for tool in tools)
        self.gates[name].set()


async def test_a_tool_waits_for_its_own_server_only() -> None:
    manager = Manager(time=True, everything=True, off=False)
    starts = FirstStarts(manager)  # type: ignore[arg-type]
    await wait_until(lambda: sorted(manager.begun) == ["everything", "time"], 5, "both starts begun")  # not "off"
    echo = asyncio.ensure_future(starts.for_tool("everything__echo"))
    listing = asyncio.ensure_future(starts.every())
    manager.go("time", "get_current_time")
    await asyncio.wait_for(starts.for_tool("time__get_current_time"), 5)  # "everything" is still held
    await asyncio.wait_for(starts.for_tool("read_file"), 5)  # a built-in waits for no server
    assert not echo.done() and not listing.done()
    assert starts.still_starting() == ["everything"]  # what a list answered now is without
    manager.go("everything", "echo")
    await asyncio.wait_for(asyncio.gather(echo, listing), 5)
    assert starts.still_starting() == []
    await starts.aclose()


async def test_a_call_withdrawn_while_it_waits_leaves_the_start_going_and_close_stops_it() -> None:
    manager = Manager(everything=True)
    starts = FirstStarts(manager)  # type: ignore[arg-type]
    waiting = asyncio.ensure_future(starts.for_tool("everything__echo"))
    await wait_until(lambda: manager.begun == ["everything"], 5, "the start begun")
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    again = asyncio.ensure_future(starts.for_tool("everything__echo"))
    await asyncio.sleep(0)
    assert not again.done()  # the start goes on: the next call still waits for it
    await starts.aclose()
    await asyncio.wait_for(again, 5)  # ended with the start, never left hanging
    assert manager.started == []
