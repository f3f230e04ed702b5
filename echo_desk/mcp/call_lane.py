"""``tools/call`` to a stdio server past the SDK's client session, on the transport's own streams.

The SDK's session spends 0.3–0.7 ms of CPU on every call (the request built as a model and dumped,
its dispatcher's bookkeeping, the result checked against the negotiated revision and validated
again; ``bench/gateway.py``'s "bare client" column measures it), more than a small server takes to
answer. Every gateway call and every MCP call of the chat pays it. The lane sits between the stdio
transport and the session: it sends a ``tools/call`` of its own (an id the session never uses) and
takes the answer to it off the server's stream before the session sees it; every other message
passes through untouched, so the handshake, listings, notifications and the server's own requests
(elicitation in the handshake era) stay the SDK's.

What the lane does not know, it leaves to the SDK, and it never sends anything twice:
- the request is stamped by the session's own stamp (the 2026-07-28 envelope of protocol version,
  client info and capabilities, exactly as the session would send it), so both eras work;
- an answer that needs the person first (``input_required``, 2026-07-28) goes to the SDK's driver,
  which asks and retries as it would for its own call;
- a structured result is checked against the tool's output schema by the session, as the SDK does,
  unless a quick check compiled from the same schema certainly accepts it (``output_check``);
- a call given up (a timeout, Stop) tells the server with ``notifications/cancelled``.
When the session lacks the stamp or the driver (another SDK version), there is no lane, and every
call takes the SDK's way: slower, never wrong.

Inside Echo Desk's own stdio transport (``stdio_transport``) the lane is on the wire itself: it
writes its requests as lines (``send_line``) and the transport's reader hands it each line of the
server first (``take_line``), so its calls skip the memory streams, their tasks and the pydantic
round trip of every message; ``pump`` and ``streams`` are for a lane behind the SDK's transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from echo_desk.common.json_encoder import encoder
from echo_desk.common.json_text import read_json
from echo_desk.mcp.output_check import QuickOutputCheck
from echo_desk.mcp.server_process import ServerProcess

log = logging.getLogger(__name__)

Incoming = SessionMessage | Exception
Stamp = Callable[[dict[str, Any], dict[str, Any]], None]
#: Writes one whole line to the server's stdin (``stdio_transport``).
SendLine = Callable[[bytes], Awaitable[None]]
#: The lane's request ids (the SDK's session numbers its own).
_ID_PREFIX = "echo-desk-lane-"
#: A line without these bytes is no answer to the lane (checked before any parsing).
_ID_BYTES = b'"echo-desk-lane-'


class CallLane:
    """Between one stdio transport and its SDK session: ``streams`` go to the session."""

    def __init__(self, read: MemoryObjectReceiveStream[Incoming], write: MemoryObjectSendStream[SessionMessage],
                 send_line: SendLine | None = None) -> None:
        self._read = read
        self._write = write
        #: On the wire (``stdio_transport``): the lane writes its own lines, and ``write`` (the
        #: session's stream to the server) only carries a request plain JSON cannot spell.
        self._send_line = send_line
        self._to_session, self._session_reads = anyio.create_memory_object_stream[Incoming](0)
        self._waiting: dict[str, asyncio.Future[types.JSONRPCResponse | types.JSONRPCError]] = {}
        self._ids = (f"{_ID_PREFIX}{n}" for n in itertools.count(1))
        self._closed = False
        self._background: set[asyncio.Task[None]] = set()
        self._client: Client | None = None
        self._stamp: Stamp | None = None
        self._output_check = QuickOutputCheck()
        #: The server's process, when the transport spawned it itself (``stdio_transport``).
        self.process: ServerProcess | None = None

    @property
    def streams(self) -> tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]:
        """What the session reads and writes: the server's stream less the lane's answers."""
        return self._session_reads, self._write

    def adopt(self, client: Client) -> bool:
        """Use ``client``'s session for stamps and the rest (after its handshake); ``False`` when
        this SDK lacks what the lane needs, and calls keep to the SDK."""
        stamp = getattr(client.session, "_stamp", None)
        if not callable(stamp) or not callable(getattr(client, "_drive_input_required", None)):
            log.info("this MCP SDK has no session stamp or input driver to borrow: tool calls keep to the SDK")
            return False
        self._client, self._stamp = client, stamp
        return True

    @property
    def ready(self) -> bool:
        return self._stamp is not None and not self._closed

    async def pump(self) -> None:
        """Route the server's messages until its stream ends: the lane's answers here, the rest on."""
        try:
            async with self._to_session:
                async for item in self._read:
                    message = item.message if isinstance(item, SessionMessage) else None
                    if (isinstance(message, types.JSONRPCResponse | types.JSONRPCError) and isinstance(message.id, str)
                            and message.id.startswith(_ID_PREFIX)):
                        # One of the lane's: its caller's, or a late answer to a call given up (dropped).
                        waiter = self._waiting.pop(message.id, None)
                        if waiter is not None and not waiter.done():
                            waiter.set_result(message)
                        continue
                    try:
                        await self._to_session.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return  # the session is gone
        finally:
            self._close()

    def take_line(self, line: bytes) -> bool:
        """For ``stdio_transport``'s reader, each line of the server before the session sees it:
        ``True`` when it answers one of the lane's requests (handed to its call, or dropped when
        the call was given up), ``False`` for the session's (anything else, or an answer that is
        not a well-formed JSON-RPC response, which the session's parser then reports)."""
        if _ID_BYTES not in line:
            return False
        try:
            message = read_json(line)
        except ValueError:  # nested past what a reader takes, too: the SDK's parser says why
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        request_id = message.get("id")
        if not isinstance(request_id, str) or not request_id.startswith(_ID_PREFIX):
            return False
        # The same models the SDK's reader checks a line against, on the plain JSON.
        model = types.JSONRPCError if "error" in message else types.JSONRPCResponse
        try:
            answer = model.model_validate(message, by_name=False)
        except (ValueError, RecursionError):
            return False
        waiter = self._waiting.pop(request_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(answer)
        return True

    def end(self) -> None:
        """The server's stream ended (``stdio_transport``): every call waiting fails. (On the wire
        the lane's own streams to the session are unused: closed here, as ``pump`` would.)"""
        self._close()
        self._to_session.close()
        self._session_reads.close()

    def _close(self) -> None:
        self._closed = True
        waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            if not waiter.done():
                waiter.set_exception(MCPError(types.CONNECTION_CLOSED, "Connection closed"))

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """The tool's result, as ``Client.call_tool`` would give it (``MCPError`` for an error
        answer or a lost connection, ``RuntimeError`` for a result its output schema refuses)."""
        client, stamp = self._client, self._stamp
        if client is None or stamp is None or self._closed:
            raise MCPError(types.CONNECTION_CLOSED, "Connection closed")
        data: dict[str, Any] = {"method": "tools/call", "params": {"name": name, "arguments": arguments}}
        stamp(data, {})
        request_id = next(self._ids)
        waiter: asyncio.Future[types.JSONRPCResponse | types.JSONRPCError] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        try:
            await self._send(request_id, "tools/call", data["params"])
            answer = await waiter
        except asyncio.CancelledError:
            if self._waiting.pop(request_id, None) is not None:
                self._spawn(self._cancelled(request_id))
            raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._waiting.pop(request_id, None)
            raise MCPError(types.CONNECTION_CLOSED, "Connection closed") from None
        if isinstance(answer, types.JSONRPCError):
            raise MCPError.from_jsonrpc_error(answer)
        raw = answer.result
        if raw.get("resultType") == "input_required":
            result = await self._finish_with_sdk(client, name, arguments, raw)
        else:
            result = types.CallToolResult.model_validate(raw, by_name=False)
        if not result.is_error and not self._output_check.surely_fits(client.session, name, result):
            await client.session.validate_tool_result(name, result)
        return result

    async def _finish_with_sdk(self, client: Client, name: str, arguments: dict[str, Any],
                               raw: dict[str, Any]) -> types.CallToolResult:
        """The server needs input (the person's answer) before it completes: the SDK's driver asks,
        and retries through the session, exactly as for a call of its own."""
        first = types.InputRequiredResult.model_validate(raw, by_name=False)

        async def retry(responses: Any, state: str | None) -> Any:
            return await client.session.call_tool(name, arguments, input_responses=responses, request_state=state,
                                                  allow_input_required=True)

        result = await client._drive_input_required(first, retry)  # private to the SDK: adopt() checked it is there
        if not isinstance(result, types.CallToolResult):
            raise RuntimeError(f"the server answered tools/call with a {type(result).__name__}")
        return result

    async def _cancelled(self, request_id: str) -> None:
        data: dict[str, Any] = {"method": "notifications/cancelled",
                                "params": {"requestId": request_id, "reason": "the caller gave up"}}
        if self._stamp is not None:
            self._stamp(data, {})
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._send(None, data["method"], data["params"])

    async def _send(self, request_id: str | None, method: str, params: dict[str, Any]) -> None:
        """To the server, a request (``request_id``) or a notification: on the wire, its line is
        spelled straight from these values (no model is built only to be dumped again); else, or
        when plain JSON cannot spell it, the SDK's message through the session's stream."""
        line = _plain_line(request_id, method, params) if self._send_line is not None else None
        if self._send_line is not None and line is not None:
            await self._send_line(line)
            return
        message = (types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params=params)
                   if request_id is not None else types.JSONRPCNotification(jsonrpc="2.0", method=method, params=params))
        await self._write.send(SessionMessage(message))

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


#: Made once (``json.dumps`` with options makes a new encoder on every call).
_encode_line = encoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _plain_line(request_id: str | None, method: str, params: dict[str, Any]) -> bytes | None:
    """A request (or, without ``request_id``, a notification) as the SDK's writer puts its model on
    the wire (the fields set, by their JSON names), spelled by ``json`` for speed; ``None`` when
    plain JSON cannot spell it (a value that is no JSON type, a lone surrogate): the SDK's writer
    then does."""
    data: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id} if request_id is not None else {"jsonrpc": "2.0"}
    data["method"] = method
    data["params"] = params
    try:
        return _encode_line(data).encode("utf-8") + b"\n"
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return None


@contextlib.asynccontextmanager
async def through_lane(transport: contextlib.AbstractAsyncContextManager[Any], keep: Callable[[CallLane], None]
                       ) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]]:
    """``transport`` (a stdio client's streams) with a lane between it and the session; ``keep``
    is given the lane, whose calls work once it has adopted the session."""
    async with transport as (read, write), anyio.create_task_group() as group:
        lane = CallLane(read, write)
        keep(lane)
        group.start_soon(lane.pump)
        try:
            yield lane.streams
        finally:
            group.cancel_scope.cancel()
