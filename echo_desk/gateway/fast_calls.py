"""``tools/call`` straight to the backend, for sessions of the handshake era.

The SDK's server spends ~1.3–1.6 ms of CPU per call here (pydantic models in and out, a dozen
event-loop turns through its memory streams and middleware; bench/gateway.py measures it), on
top of a call that is mostly such overhead itself. The one request clients repeat by the
hundred is answered here instead, when it is plain: a session that opened with ``initialize``
(the handshake era: what Claude Code, Cursor, VS Code and the TypeScript SDK speak), after
``notifications/initialized``, a ``tools/call`` whose params hold only ``name``, ``arguments``
and a ``_meta`` with only a ``progressToken``. Its progress is sent as
``notifications/progress`` and a ``notifications/cancelled`` for it cancels it, as the SDK would.
Everything else — the handshake, listings, the 2026-07-28 era, any call with more in it — goes
to the SDK unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp_types import PROTOCOL_VERSION_META_KEY

from echo_desk.gateway.results import error_result
from echo_desk.gateway.server import Backend

log = logging.getLogger(__name__)

Write = Callable[[bytes], Awaitable[None]]

_PARAMS = frozenset({"name", "arguments", "_meta"})


def _opens_2026_era(method: str, params: object) -> bool:
    """As the SDK decides a session's era from its first request: the 2026-07-28 envelope (the
    protocol version in ``_meta``) on anything but ``initialize``."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return method != "initialize" and isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class FastCalls:
    """Takes the plain calls of a handshake-era session (``take``); the SDK gets the rest."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._write: Write | None = None
        self._fail: Callable[[BaseException], None] = lambda _exc: None
        #: Decided by the session's first request (the handshake era unless it opens the 2026 one).
        self.handshake: bool | None = None
        self.initialized = False
        self.calls: dict[Any, asyncio.Task[None]] = {}

    def attach(self, write: Write, fail: Callable[[BaseException], None]) -> None:
        """``write`` sends a line to the client; ``fail`` ends the session (it stopped reading)."""
        self._write, self._fail = write, fail

    def take(self, line: bytes) -> bool:
        """Handle ``line`` here (``True``), or leave it to the SDK (``False``)."""
        if self.initialized and b"tools/call" not in line and b"notifications/cancelled" not in line:
            return False
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False
        method = message.get("method")
        if self.handshake is None and "id" in message and isinstance(method, str):
            self.handshake = not _opens_2026_era(method, message.get("params"))
        if method == "notifications/initialized":
            self.initialized = bool(self.handshake)
            return False
        if method == "notifications/cancelled":
            return self._cancel(message.get("params"))
        if method != "tools/call" or not self.initialized or self._write is None:
            return False
        return self._start(message)

    def _start(self, message: dict[str, Any]) -> bool:
        request_id, params = message.get("id"), message.get("params")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool) or request_id in self.calls:
            return False
        if not isinstance(params, dict) or not set(params) <= _PARAMS or not isinstance(params.get("name"), str):
            return False
        arguments = params.get("arguments", {})
        meta = params.get("_meta", {})
        if not isinstance(arguments, dict) or not isinstance(meta, dict) or not set(meta) <= {"progressToken"}:
            return False
        token = meta.get("progressToken")
        if token is not None and (not isinstance(token, str | int) or isinstance(token, bool)):
            return False
        task = asyncio.ensure_future(self._call(request_id, params["name"], arguments, token))
        self.calls[request_id] = task
        task.add_done_callback(lambda t: self._done(request_id, t))
        return True

    async def _call(self, request_id: Any, name: str, arguments: dict[str, Any], token: Any) -> None:
        assert self._write is not None
        write = self._write
        progress = None
        if token is not None:
            step = itertools.count(1)

            async def progress(text: str) -> None:
                await write(_line({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": token, "progress": next(step), "message": text}}))

        try:
            result = await self.backend.call(name, arguments, progress)
        except asyncio.CancelledError:
            raise  # withdrawn by the client: no answer is expected
        except Exception as exc:  # a failure of the relay itself: said to the client as the call's error
            log.exception("the call of %s failed in the gateway", name)
            result = error_result(f"the gateway could not complete the call: {exc}")
        await write(_line({"jsonrpc": "2.0", "id": request_id, "result": result}))

    def _done(self, request_id: Any, task: asyncio.Task[None]) -> None:
        if self.calls.get(request_id) is task:
            del self.calls[request_id]
        if not task.cancelled() and task.exception() is not None:
            self._fail(task.exception() or RuntimeError("a call failed"))  # the client stopped reading

    def _cancel(self, params: object) -> bool:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        task = self.calls.get(request_id) if isinstance(request_id, str | int) else None
        if task is None:
            return False  # one of the SDK's
        task.cancel()
        return True

    async def aclose(self) -> None:
        tasks = list(self.calls.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
