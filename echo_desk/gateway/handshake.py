"""Sessions of the handshake era served without the MCP SDK, until they need it.

The SDK costs a gateway process 1.2 s of imports before it can answer ``initialize``, and its
server spends ~1.3–1.6 ms of CPU per call (pydantic models in and out, a dozen event-loop turns
through its memory streams; bench/gateway.py measures it). What Claude Code, Cursor, VS Code and
the TypeScript SDK send is a handful of plain requests of the handshake era, and those are
answered here: ``initialize``, ``notifications/initialized``, ``ping``, ``tools/list``,
``tools/call`` (its progress as ``notifications/progress``, withdrawn by
``notifications/cancelled``), and ``notifications/tools/list_changed`` when the tools change.

Only what is fully understood is taken. A session whose first message is anything but a plain
``initialize`` (the 2026-07-28 era, a client that skips the handshake, a malformed one) is the
SDK's from its first line. A session that sends anything else later (another method, a call with
more in it) is handed to the SDK at that line: the SDK is given the session's ``initialize`` and
``notifications/initialized`` again first (``hand_over``), so it stands where the client does, and
its answer to that replayed ``initialize`` is dropped. Calls already running here finish here.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from echo_desk import __version__
from echo_desk.common.json_encoder import encoder
from echo_desk.common.json_text import read_json
from echo_desk.gateway.results import error_result
from echo_desk.gateway.tools_backend import Backend

log = logging.getLogger(__name__)

Write = Callable[[bytes], Awaitable[None]]

SERVER_NAME = "echo-desk"
SERVER_TITLE = "Echo Desk"
INSTRUCTIONS = (
    "Tools offered through Echo Desk. Echo Desk's own rules decide each call; calls that need the "
    "person's approval wait while they decide in Echo Desk's window (progress notifications are "
    "sent meanwhile when you give a progress token). A denied call says so in its result."
)

#: The revisions the ``initialize`` handshake reaches, oldest first, as the SDK lists them
#: (``mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS``; a test keeps the two equal). A client
#: asking for another is offered the newest, as the SDK does.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

INTERNAL_ERROR = -32603
INVALID_REQUEST = -32600

_CALL_PARAMS = frozenset({"name", "arguments", "_meta"})
_INITIALIZE_PARAMS = frozenset({"protocolVersion", "capabilities", "clientInfo", "_meta"})


#: Made once (``json.dumps`` with options makes a new encoder on every call: every answer's line).
_encode = encoder(ensure_ascii=False, separators=(",", ":"))
_encode_ascii = encoder(separators=(",", ":"))


def _line(message: dict[str, Any]) -> bytes:
    text = _encode(message)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: escaped, as it came (``protocol.encode``)
        return _encode_ascii(message).encode("ascii") + b"\n"


def is_request_id(value: object) -> bool:
    """A JSON-RPC request id: a string or an integer (``true`` is not one, though Python says so)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def request_key(value: Any) -> Any:
    """The request an id names: ``"7"`` and ``7`` are one request (the SDKs correlate them so)."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return int(value)
    return value


#: The answer to a request whose id names one still under way (English: it goes to the client).
ID_IN_USE = ("Invalid Request: request id {id!r} is already in use by a request still under way "
             "(a cancel naming it could not tell the two apart); nothing of this request was run")


def _is_token(value: object) -> bool:
    return value is None or is_request_id(value)


def _plain_initialize(message: dict[str, Any]) -> bool:
    params = message.get("params")
    if not is_request_id(message.get("id")) or not isinstance(params, dict) or not set(params) <= _INITIALIZE_PARAMS:
        return False
    capabilities, info = params.get("capabilities"), params.get("clientInfo")
    return (isinstance(params.get("protocolVersion"), str)
            and isinstance(capabilities, dict) and all(isinstance(v, dict) for v in capabilities.values())
            and isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)
            and isinstance(params.get("_meta", {}), dict))


def _only_meta(params: object) -> bool:
    """No params, or only a ``_meta`` object (what ``ping`` and a first ``tools/list`` carry)."""
    return params is None or (isinstance(params, dict) and set(params) <= {"_meta"}
                              and isinstance(params.get("_meta", {}), dict))


def _plain_list(params: object) -> bool:
    if _only_meta(params):
        return True
    # A cursor asks for the next page; there is one page, so any cursor gets it (as the SDK's).
    return (isinstance(params, dict) and set(params) <= {"_meta", "cursor"} and isinstance(params.get("cursor"), str)
            and isinstance(params.get("_meta", {}), dict))


class HandServed:
    """Takes the lines of a handshake-era session it fully understands (``take``); the SDK the rest."""

    def __init__(self, backend: Backend, *, by_hand: bool = True) -> None:
        self.backend = backend
        self._write: Write | None = None
        self._fail: Callable[[BaseException], None] = lambda _exc: None
        #: Decided by the session's first message: ``True`` when it is served here (never, when
        #: ``by_hand`` is off: the SDK serves every line).
        self.mine: bool | None = None if by_hand else False
        #: The SDK serves this session's other lines (``hand_over`` was called).
        self.handed_over = False
        self.listed = False
        self._initialize: bytes | None = None
        self._initialized: bytes | None = None
        #: Requests under way here, by ``request_key`` of their id (what a cancel names).
        self.calls: dict[Any, asyncio.Task[None]] = {}
        self._notices: set[asyncio.Task[None]] = set()
        #: A session the SDK served from its first line: its ``initialize`` and ``notifications/initialized``.
        self._sdk_opening: list[bytes] = []

    def attach(self, write: Write, fail: Callable[[BaseException], None]) -> None:
        """``write`` sends a line to the client; ``fail`` ends the session (it stopped reading)."""
        self._write, self._fail = write, fail

    def take(self, line: bytes) -> bool:
        """Handle ``line`` here (``True``), or leave it to the SDK (``False``)."""
        if self.mine is False:
            self._note_initialized(line)
            return False
        if self.handed_over and b"notifications/cancelled" not in line:
            return False
        try:
            message = read_json(line)
        except ValueError:  # answered as not JSON by the transport
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False  # not JSON-RPC: answered as such by the transport, whoever serves the session
        method = message.get("method")
        if self.mine is None:
            self.mine = method == "initialize" and _plain_initialize(message)
            if not self.mine:
                if method == "initialize":  # the SDK's from here: kept should it be handed on (``begun``)
                    self._sdk_opening = [line]
                return False
            self._initialize = line
            self._answer(message["id"], self._initialize_result(message["params"]))
            return True
        if method == "notifications/cancelled":
            return self._cancel(message.get("params"))
        if self.handed_over:
            return False
        if isinstance(method, str) and self.busy(message.get("id")):
            # Taken, its id would name two requests: a cancel of it withdrew only one of them.
            self._refuse(message["id"])
            return True
        params = message.get("params")
        if method == "notifications/initialized" and _only_meta(params) and "id" not in message:
            self._initialized = line
            return True
        if method == "ping" and is_request_id(message.get("id")) and _only_meta(params):
            self._answer(message["id"], {})
            return True
        if method == "tools/list" and is_request_id(message.get("id")) and _plain_list(params):
            self.listed = True
            self._start(message["id"], self._list)
            return True
        if method == "tools/call" and self._initialized is not None:
            return self._call(message)
        return False

    def _note_initialized(self, line: bytes) -> None:
        """Keep the SDK's session's ``notifications/initialized``, the one line after its opening."""
        if len(self._sdk_opening) != 1 or b"notifications/initialized" not in line:
            return
        with contextlib.suppress(ValueError):
            message = read_json(line)
            if isinstance(message, dict) and message.get("method") == "notifications/initialized" \
                    and "id" not in message and len(self._sdk_opening) == 1:
                self._sdk_opening.append(line)

    def underway(self) -> list[asyncio.Task[None]]:
        """The requests and notices of this session still on their way to the client."""
        return [*self.calls.values(), *self._notices]

    def resume(self, by_hand: bool, opening: list[bytes]) -> None:
        """Go on with a session another process began (the app handed the client's pipes back):
        ``opening`` (its ``initialize`` and ``notifications/initialized``) was answered there, so
        it is not answered again; the SDK is given it first should it serve the session (at once
        when it served it there, ``by_hand`` false). Such a client may have listed the tools: it
        is told when they change."""
        if by_hand and not opening:
            return  # nothing was said yet: the session begins here
        self.mine, self.listed = True, True
        self._initialize = opening[0] if opening else None
        self._initialized = opening[1] if len(opening) > 1 else None
        self.handed_over = not by_hand

    @property
    def begun(self) -> tuple[bool, list[bytes]]:
        """How this session stands, for ``resume`` in another process: served by hand (else by
        the SDK) and the opening lines it was given, as the client sent them."""
        if self.mine is False:
            return False, list(self._sdk_opening)
        return not self.handed_over, [line for line in (self._initialize, self._initialized) if line is not None]

    def busy(self, request_id: object) -> bool:
        """``request_id`` names a request still under way here."""
        return is_request_id(request_id) and request_key(request_id) in self.calls

    def _refuse(self, request_id: Any) -> None:
        self._send_soon({"jsonrpc": "2.0", "id": request_id,
                         "error": {"code": INVALID_REQUEST, "message": ID_IN_USE.format(id=request_id)}})

    def hand_over(self) -> list[bytes]:
        """From now on the SDK serves this session; returns the lines it must see first (this
        session's ``initialize`` and ``notifications/initialized``, already answered here)."""
        self.handed_over = True
        return [line for line in (self._initialize, self._initialized) if line is not None]

    @property
    def replayed_id(self) -> Any:
        """The id of the ``initialize`` replayed to the SDK, whose answer the client must not get."""
        return read_json(self._initialize)["id"] if self._initialize is not None else None

    def tools_changed(self) -> None:
        """Tell a client that listed the tools that they changed (after a hand-over, whether it
        listed them is the SDK's to know: it is told anyway, which costs it one listing)."""
        if (self.listed or self.handed_over) and self._write is not None:
            self._send_soon({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

    # -- answers ------------------------------------------------------------------------------
    @staticmethod
    def _initialize_result(params: dict[str, Any]) -> dict[str, Any]:
        asked = params["protocolVersion"]
        return {"protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": __version__},
                "instructions": INSTRUCTIONS}

    def _answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self._send_soon({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _send_soon(self, message: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self._send(_line(message)))
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _send(self, data: bytes) -> None:
        assert self._write is not None
        try:
            await self._write(data)
        except (ConnectionError, OSError) as exc:  # the client stopped reading: the session ends
            self._fail(exc)

    async def _list(self) -> dict[str, Any]:
        return {"tools": await self.backend.list_tools()}

    def _call(self, message: dict[str, Any]) -> bool:
        request_id, params = message.get("id"), message.get("params")
        if not is_request_id(request_id):
            return False
        if not isinstance(params, dict) or not set(params) <= _CALL_PARAMS or not isinstance(params.get("name"), str):
            return False
        arguments = params.get("arguments", {})
        meta = params.get("_meta", {})
        if not isinstance(arguments, dict) or not isinstance(meta, dict) or not set(meta) <= {"progressToken"}:
            return False
        token = meta.get("progressToken")
        if not _is_token(token):
            return False
        self._start(request_id, lambda: self._run(params["name"], arguments, token))
        return True

    def _start(self, request_id: Any, work: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        # (The loop's own create_task: ensure_future first asks what it was given, in Python.)
        task = asyncio.get_running_loop().create_task(self._reply(request_id, work))
        key = request_key(request_id)
        self.calls[key] = task
        task.add_done_callback(lambda t: self._done(key, t))

    async def _reply(self, request_id: Any, work: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        assert self._write is not None
        try:
            answer: dict[str, Any] = {"result": await work()}
        except asyncio.CancelledError:
            raise  # withdrawn by the client: no answer is expected
        except Exception as exc:  # as the SDK answers a handler that failed
            log.exception("request %r failed in the gateway", request_id)
            answer = {"error": {"code": INTERNAL_ERROR, "message": str(exc)}}
        await self._write(_line({"jsonrpc": "2.0", "id": request_id, **answer}))

    async def _run(self, name: str, arguments: dict[str, Any], token: Any) -> dict[str, Any]:
        assert self._write is not None
        write = self._write
        progress = None
        if token is not None:
            step = itertools.count(1)

            async def progress(text: str) -> None:
                await write(_line({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": token, "progress": next(step), "message": text}}))

        try:
            return await self.backend.call(name, arguments, progress)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failure of the relay itself: said to the client as the call's error
            log.exception("the call of %s failed in the gateway", name)
            return error_result(f"the gateway could not complete the call: {exc}")

    def _done(self, key: Any, task: asyncio.Task[None]) -> None:
        if self.calls.get(key) is task:
            del self.calls[key]
        if not task.cancelled() and task.exception() is not None:
            self._fail(task.exception() or RuntimeError("a call failed"))  # the client stopped reading

    def _cancel(self, params: object) -> bool:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        task = self.calls.get(request_key(request_id)) if is_request_id(request_id) else None
        if task is None:
            return self.mine is True and not self.handed_over  # nothing of ours to withdraw: nothing to do
        task.cancel()
        return True

    async def aclose(self) -> None:
        tasks = [*self.calls.values(), *self._notices]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
