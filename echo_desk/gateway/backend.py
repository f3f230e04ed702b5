"""Where a gateway's requests go: the running app, else an in-process engine that asks no one.

``AppBackend`` relays to the app over the socket. When the app is not running it is started if
a display is there (once, waiting up to ``APP_START_SECONDS`` for its socket). When the app
cannot be reached, requests go to the fallback: the same engine, settings, rules and audit log
in this process (``fallback.LocalBackend``, made only then), where a call the rules or settings allow runs, and a call that
needs the person is refused AT ONCE with the reason ("Echo Desk is not running; open it…")
instead of waiting for an answer nobody can give. A call under way when the app quits ends with
that said, never a hang.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from echo_desk.gateway.launch import AppLauncher
from echo_desk.gateway.relay import AppUnreachable, Relay
from echo_desk.gateway.results import error_result
from echo_desk.gateway.tools_backend import Backend, Progress

if TYPE_CHECKING:  # the fallback's module imports the engine: only a gateway without the app needs it
    from echo_desk.gateway.fallback import LocalBackend

log = logging.getLogger(__name__)


#: Makes the fallback when it is first needed (``why``: why the app cannot be reached).
FallbackFactory = Callable[[str], Awaitable["LocalBackend"]]


@dataclass
class AppBackend:
    """One client's way to its tools from a gateway process."""

    path: Path
    client: str
    workspace: str = ""
    transport: str = "stdio"
    launcher: AppLauncher | None = None
    fallback_factory: FallbackFactory | None = None
    #: Called when the app says the client's tools changed.
    on_tools_changed: Callable[[], None] | None = None
    _relay: Relay | None = field(default=None, init=False)
    _fallback: LocalBackend | None = field(default=None, init=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    #: One fallback is made at a time: calls that come together while it starts share it.
    _fallback_lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)

    async def _connected(self) -> tuple[Relay | None, str]:
        """The relay to the app (connecting, or starting the app, when needed), or why not."""
        async with self._lock:
            if self._relay is not None and not self._relay.closed:
                return self._relay, ""
            why = await self._connect()
            if self._relay is None and self.launcher is not None and self.launcher.may_start():
                if await self.launcher.start_and_wait(self.path):
                    why = await self._connect()
                else:
                    why = self.launcher.why_not or why
            return self._relay, why

    async def _connect(self) -> str:
        try:
            self._relay = await Relay.connect(self.path, self.client, workspace=self.workspace,
                                              transport=self.transport)
        except AppUnreachable as exc:
            self._relay = None
            return str(exc)
        self._relay.on_tools_changed = self.on_tools_changed
        if self._fallback is not None:  # the app is back: its tools, not ours
            fallback, self._fallback = self._fallback, None
            _keep(asyncio.ensure_future(fallback.close()))
        return ""

    async def _backend(self) -> tuple[Backend | None, str]:
        relay, why = await self._connected()
        if relay is not None:
            return relay, ""
        if self.fallback_factory is None:
            return None, why
        async with self._fallback_lock:
            if self._fallback is None:
                try:
                    self._fallback = await self.fallback_factory(why)
                except Exception as exc:  # said to the client: there is nothing else to fall back to
                    log.exception("the in-process engine could not start")
                    return None, f"{why}, and Echo Desk's engine could not start here: {exc}"
                # Its servers still starting when the client listed: the client is told when they are up.
                self._fallback.watch_tools(self._tools_changed)
            return self._fallback, why

    def _tools_changed(self) -> None:
        if self.on_tools_changed is not None:
            self.on_tools_changed()

    async def prepare(self) -> None:
        """Have the way to the tools ready before the next request (the app just quit: the
        engine here takes seconds to start its MCP servers, and a call needing the person is to
        be refused at once)."""
        await self._backend()

    async def list_tools(self) -> list[dict[str, Any]]:
        # The fallback's wait for servers still starting counts from here: when this list is what
        # starts it, the client has already waited the seconds its engine took to start.
        asked = asyncio.get_running_loop().time()
        backend, why = await self._backend()
        if backend is None:
            log.warning("no tools to list: %s", why)
            return []
        try:
            return await self._list(backend, asked)
        except AppUnreachable as exc:
            return await self._after_loss(str(exc), asked)

    async def _after_loss(self, why: str, asked: float) -> list[dict[str, Any]]:
        backend, _ = await self._backend()
        if backend is None:
            log.warning("no tools to list: %s", why)
            return []
        try:
            return await self._list(backend, asked)
        except AppUnreachable:
            return []

    async def _list(self, backend: Backend, asked: float) -> list[dict[str, Any]]:
        fallback = self._fallback
        if fallback is not None and backend is fallback:
            return await fallback.list_tools(asked_at=asked)
        return await backend.list_tools()

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None) -> dict[str, Any]:
        backend, why = await self._backend()
        if backend is None:
            return error_result(f"{why}. Open Echo Desk (run echo-desk) to use its tools, then call again.")
        try:
            return await backend.call(name, arguments, progress)
        except AppUnreachable as exc:
            return error_result(
                f"The call of {name} did not finish: {exc}. Whether it ran is in Echo Desk's "
                "activity log (Settings › Permissions › Activity); call again to retry.")

    async def aclose(self) -> None:
        if self._relay is not None:
            await self._relay.aclose()
        fallback, self._fallback = self._fallback, None
        if fallback is not None:
            await fallback.close()


_kept: set[asyncio.Future[Any]] = set()


def _keep(future: asyncio.Future[Any]) -> None:
    _kept.add(future)
    future.add_done_callback(_kept.discard)
