"""One connected client, app side: its scope, what it sees, and its calls through the dispatcher.

The same object serves a gateway over the socket and the in-process fallback (no app running):
every call is ``Dispatcher.execute_tool`` with the client's scope (labelled with its name, so the
dialog, the rules and the audit know who asks) and a host that takes approvals to the person.
While a call runs it reports progress: at once when it starts waiting for the person, then every
``keepalive`` seconds, so a client that resets its timeout on progress keeps waiting. A call's
answer is given only once its audit record is written (``AuditLog.written``): killed right after
answering, the app has not lost the record of what it answered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from echo_desk.agent.dispatcher import Dispatcher, new_call_id
from echo_desk.agent.host import ApprovalDecision, ApprovalRequest, Host, NoOneToAsk
from echo_desk.agent.model import ToolCall
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.schema import SchemaFactory
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.common.json_encoder import encoder
from echo_desk.gateway.clients import display_name
from echo_desk.gateway.results import to_mcp
from echo_desk.gateway.view import ensure_profile, granted, listing
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.tools.host import Answer, AnswerAction, NullToolHost, Question

log = logging.getLogger(__name__)

#: Made once (``json.dumps`` with options makes a new encoder on every call).
_encode = encoder(ensure_ascii=False)

#: Seconds between progress notifications while a call runs or waits for the person.
KEEPALIVE_SECONDS = 5.0

#: Progress as the client's user reads it (English: it goes to another program's window or log).
PROGRESS_TEXT = {
    ToolStatus.WAITING_APPROVAL: "Waiting for the person to approve this call in Echo Desk",
    ToolStatus.RUNNING: "Running",
}

Progress = Callable[[str], Awaitable[None]]

#: How many of one client's approvals are in front of the person at once (over all its
#: connections); its other calls that need the person wait their turn. Each approval is a window
#: brought to the front with a notification: a client's flood of calls must not bury the person,
#: or another app's request, under its windows.
APPROVALS_AT_ONCE = 3
#: How many of one client's calls may wait for the person at all (in front of them, or waiting
#: their turn), and how many of every client's together. Each is held in the app with its
#: arguments and preview (a few MB for a large write) for as long as the person takes: a client
#: that sent call after call without end grew the app's memory without bound (300 calls of 1 MB:
#: +900 MB). A call past either bound is refused at once, saying why, and recorded as refused.
PENDING_PER_CLIENT = 16
PENDING_IN_ALL = 64


class WaitingRoom:
    """The calls of every client that wait for the person now (``PENDING_IN_ALL``)."""

    def __init__(self, at_most: int = PENDING_IN_ALL) -> None:
        self.at_most = at_most
        self.count = 0


class ApprovalTurns:
    """One client's approvals (over all its connections): ``at_once`` in front of the person, at
    most ``pending_at_most`` waiting in all, and room for them in the shared ``room``."""

    def __init__(self, at_once: int = APPROVALS_AT_ONCE, pending_at_most: int = PENDING_PER_CLIENT,
                 room: WaitingRoom | None = None) -> None:
        self.front = asyncio.Semaphore(at_once)
        self.pending_at_most = pending_at_most
        self.pending = 0
        self.room = room if room is not None else WaitingRoom(pending_at_most)

    def refusal(self, client: str, tool: str) -> str:
        """Why one more call cannot wait for the person now (English: it goes to the client), or ''."""
        if self.pending >= self.pending_at_most:
            return (f"{client} already has {self.pending} calls waiting for the person in Echo Desk, so this "
                    f"call of {tool} was not run. Call again once they are answered.")
        if self.room.count >= self.room.at_most:
            return (f"{self.room.count} calls of connected apps already wait for the person in Echo Desk, so "
                    f"this call of {tool} was not run. Call again once they are answered.")
        return ""


class Engine(Protocol):
    """The parts of the engine a session uses (``echo_desk.runtime.Runtime`` has them)."""

    @property
    def dispatcher(self) -> Dispatcher: ...

    @property
    def schema_factory(self) -> SchemaFactory: ...

    @property
    def settings(self) -> SettingsStore: ...

    @property
    def registry(self) -> ToolRegistry: ...


@dataclass
class ClientHost(NullToolHost):
    """A client's door to the person: approvals go to ``person`` (the app's host, which opens
    the dialog, or one that says at once that nobody can answer); files a tool changed are
    told to it too (the window refreshes). An MCP server's question during the client's call
    (elicitation: a form, an address to open) is asked in Echo Desk's window, saying for which
    app; the agent's own questions (``ask_user``) are not: the client has its own way to ask."""

    person: Host
    #: The client's display name, for the question's heading.
    client: str = ""
    #: The client's turns in front of the person: its approvals beyond them wait, and those past
    #: its bound are refused (``None``: no bound).
    turns: ApprovalTurns | None = None

    async def ask(self, question: Question) -> Answer:
        if not question.mcp_server:
            return Answer(action=AnswerAction.CANCEL)
        return await self.person.ask(replace(question, client=self.client))

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        turns = self.turns
        if turns is None:
            return await self.person.request_approval(request)
        refused = turns.refusal(self.client, request.tool_name)
        if refused:
            raise NoOneToAsk(refused)
        turns.pending += 1
        turns.room.count += 1
        try:
            async with turns.front:  # withdrawn while it waits: it never reaches the person
                return await self.person.request_approval(request)
        finally:
            turns.pending -= 1
            turns.room.count -= 1

    def file_mutated(self, path: str) -> None:
        self.person.file_mutated(path)


@dataclass
class ClientSession:
    engine: Engine
    person: Host
    client: str
    workspace: Path | None = None
    transport: str = "stdio"
    keepalive: float = KEEPALIVE_SECONDS
    #: Shared by the client's connections: how many of its approvals the person sees at once.
    approval_turns: ApprovalTurns | None = None
    since: float = field(default_factory=time.time)
    #: Calls in flight, and how many of them wait for the person now.
    running: int = 0
    waiting: int = 0

    def __post_init__(self) -> None:
        ensure_profile(self.engine.settings, self.client)
        roots = (self.workspace,) if self.workspace is not None else ()
        self.scope = Scope(label=display_name(self.client), client=self.client, workspace_roots=roots,
                           regrant=self._refresh_grant)
        self.host = ClientHost(self.person, display_name(self.client), turns=self.approval_turns)
        #: What the scope's grant was computed from: the registry's generation and the settings
        #: (a new object on every change), so a call recomputes it only when one of them changed.
        self._granted_from: tuple[int, Settings] | None = None

    def _refresh_grant(self) -> None:
        """The client's granted tools, as its profile and the tools there are say now."""
        registry, settings = self.engine.registry, self.engine.settings.current
        last = self._granted_from
        if last is None or last[0] != registry.generation or last[1] is not settings:
            self.scope.granted_tools = granted(registry, settings, self.client)
            self._granted_from = (registry.generation, settings)

    def tools(self) -> list[dict[str, Any]]:
        return listing(self.engine.schema_factory, self.engine.registry, self.scope)

    async def call(self, name: str, arguments: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
        """Run one ``tools/call``; the answer is the ``CallToolResult`` as a JSON object.
        Cancelling it withdraws the call (an open dialog says so; the audit says cancelled)."""
        # The profile (and the tools there are) may have changed since the last call.
        self._refresh_grant()
        status: list[ToolStatus] = [ToolStatus.PENDING]
        ticker: asyncio.TimerHandle | None = None

        def on_status(new: ToolStatus) -> None:
            if new is ToolStatus.WAITING_APPROVAL:
                self.waiting += 1
            elif status[-1] is ToolStatus.WAITING_APPROVAL:
                self.waiting -= 1
            status.append(new)
            if progress is not None and new is ToolStatus.WAITING_APPROVAL:
                _spawn(progress(PROGRESS_TEXT[new]))

        if progress is not None:  # (the loop looked up only then: each look is a getpid on 3.11)
            loop, told = asyncio.get_running_loop(), progress

            def tick() -> None:  # a timer, not a task: most calls end long before the first tick
                nonlocal ticker
                text = PROGRESS_TEXT.get(status[-1])
                if text is not None:
                    _spawn(told(text))
                ticker = loop.call_later(self.keepalive, tick)

            ticker = loop.call_later(self.keepalive, tick)
        self.running += 1
        try:
            envelope = await self.engine.dispatcher.execute_tool(
                ToolCall(id=new_call_id(), name=name, arguments=_encode(arguments), parsed=arguments),
                self.scope, self.host, on_status=on_status,
            )
        finally:
            self.running -= 1
            if status[-1] is ToolStatus.WAITING_APPROVAL:
                self.waiting -= 1
            if ticker is not None:
                ticker.cancel()
        await self.engine.dispatcher.recorded(f"{name} (for {self.client})")
        return to_mcp(envelope)


_pending: set[asyncio.Task[Any]] = set()


def _spawn(coro: Awaitable[Any]) -> None:
    task = asyncio.ensure_future(coro)
    _pending.add(task)
    task.add_done_callback(_done)


def _done(task: asyncio.Task[Any]) -> None:
    _pending.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: a progress message that could not be sent is no failure
