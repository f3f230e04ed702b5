"""The SDK's MCP server for the part of a session ``handshake.HandServed`` does not serve.

Opened only when a session first needs it, so a gateway process that never does (most clients)
never imports the SDK (this module is imported on a worker thread then: ~1.2 s, while calls
already running by hand go on).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from echo_desk.common.json_text import read_json
from echo_desk.gateway.handshake import ID_IN_USE, is_request_id, request_key
from echo_desk.gateway.server import ListWatchers, init_options, mcp_server
from echo_desk.gateway.stdio import INVALID_REQUEST, Write, error_line
from echo_desk.gateway.tools_backend import Backend


def parsed(line: bytes) -> SessionMessage | bytes:
    """The message of one JSON-RPC line, or the error line to answer it with."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        pass
    found = json_object(line).get("id")
    return error_line(found if is_request_id(found) else None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message MCP knows")


def json_object(line: bytes) -> dict[str, Any]:
    with contextlib.suppress(ValueError):
        raw = read_json(line)
        if isinstance(raw, dict):
            return raw
    return {}


class SdkSession:
    """``await SdkSession.open(...)``; then ``send`` each line; ``aclose`` when the session ends."""

    def __init__(self, write: Write, drop_id: Any, busy: Callable[[object], bool] = lambda _id: False) -> None:
        self._write = write
        self._drop_id = drop_id
        #: Requests of the client under way here, by ``request_key`` (the SDK's server keeps one
        #: per id: a second request of the same id overwrote the first, which no cancel reached
        #: then); ``busy`` says those still under way by hand.
        self._in_flight: set[Any] = set()
        self._busy = busy
        self._to_server, self._from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        self._to_client, self._from_server = anyio.create_memory_object_stream[SessionMessage](0)
        self._tasks: list[asyncio.Task[Any]] = []
        self._idle = asyncio.Event()
        self._idle.set()

    @classmethod
    async def open(cls, backend: Backend, watchers: ListWatchers, write: Write, prelude: list[bytes],
                   drop_id: Any, end: Callable[[], None],
                   busy: Callable[[object], bool] = lambda _id: False) -> SdkSession:
        """The SDK's server for this session, first given ``prelude`` (the lines answered by hand
        that brought the client where it stands); its answer to the request ``drop_id`` is dropped.
        A request whose id names one still under way (here, or by hand as ``busy`` says) is
        refused, never given to the SDK."""
        session = cls(write, drop_id, busy)

        async def backend_for(_ctx: Any) -> Backend:
            return backend

        server = mcp_server(backend_for, watchers)
        for work in (server.run(session._from_client, session._to_client, init_options(server)), session._pump_out()):
            task = asyncio.ensure_future(work)
            task.add_done_callback(lambda _t: end())  # the server or the client's side gave up
            session._tasks.append(task)
        for line in prelude:
            await session.send(line, replayed=True)
        return session

    async def send(self, line: bytes, *, replayed: bool = False) -> None:
        message = parsed(line)
        if isinstance(message, bytes):
            await self._write(message)
            return
        inner = message.message
        if isinstance(inner, types.JSONRPCRequest):
            key = request_key(inner.id)
            if not replayed and (key in self._in_flight or self._busy(inner.id)):
                await self._write(error_line(inner.id, INVALID_REQUEST, ID_IN_USE.format(id=inner.id)))
                return
            self._in_flight.add(key)
            self._idle.clear()
        elif isinstance(inner, types.JSONRPCNotification) and inner.method == "notifications/cancelled" \
                and isinstance(inner.params, dict) and is_request_id(inner.params.get("requestId")):
            self._settle(inner.params["requestId"])  # never answered, by the spec
        await self._to_server.send(message)

    async def _pump_out(self) -> None:
        async with self._from_server:
            async for message in self._from_server:
                answer = message.message
                answered = answer.id if isinstance(answer, types.JSONRPCResponse | types.JSONRPCError) else None
                if self._drop_id is not None and answered is not None and answered == self._drop_id:
                    self._drop_id = None  # the replayed initialize's: the client has had one
                    self._settle(answered)
                    continue
                try:
                    await self._write(answer.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")
                finally:
                    if answered is not None:  # under way until its answer is written (``answered``)
                        self._settle(answered)

    def _settle(self, request_id: Any) -> None:
        self._in_flight.discard(request_key(request_id))
        if not self._in_flight:
            self._idle.set()

    def idle(self) -> bool:
        return self._idle.is_set()

    async def answered(self) -> None:
        """Until every request of the client's given here is answered (or withdrawn by it)."""
        await self._idle.wait()

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._to_server.aclose()
        await self._to_client.aclose()

