"""Tool calls and elicitation, on the manager's loop.

A call gets a timeout; cancelling it (Stop, timeout) cancels the SDK request, which sends the
protocol's ``notifications/cancelled``. Failures become error kinds so the circuit breaker
works per MCP tool: transport/protocol → ``dependency``, ``isError`` → ``business``,
timeout → ``timeout``. A server asking the person something mid-call (elicitation) is routed
to the ``host`` of the call in flight on that server, else to the manager's host.

A server may ask only while it works on a request of ours: a tool call, or a read or prompt the
person asked for (``person_request``). MCP requires it (SEP-2260), and a question out of nowhere
("Your session expired. Enter your password:") from a server running in the background is how a
server phishes: it is refused without being shown, with an error that says why.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from echo_desk.i18n import N_, deferred, for_person
from echo_desk.mcp.connection import Ending, address_of, gone_detail
from echo_desk.mcp.own_folder import own_folder_of
from echo_desk.mcp.question_caps import UnshowableForm, cap_question
from echo_desk.mcp.results import convert_result, with_planted
from echo_desk.mcp.status import STATE_LABELS, ManagerClosed
from echo_desk.mcp.url_elicitation import ask_to_open, required_elicitations
from echo_desk.tools import (
    AnswerAction,
    ErrorKind,
    NullToolHost,
    Question,
    ToolExecutionContext,
    ToolHost,
    ToolResult,
)

if TYPE_CHECKING:
    from echo_desk.mcp.config import ServerConfig
    from echo_desk.mcp.connection import ServerConnection
    from echo_desk.mcp.owner import CallOwner
    from echo_desk.tools.planted import Planted

log = logging.getLogger(__name__)


def apply_defaults(schema: dict[str, Any] | None, values: dict[str, Any]) -> dict[str, Any]:
    """The person's answers over the schema's defaults, limited to the schema's properties."""
    props = (schema or {}).get("properties") or {}
    out = {key: spec["default"] for key, spec in props.items() if isinstance(spec, dict) and "default" in spec}
    out.update({key: value for key, value in values.items() if not props or key in props})
    return out


def _sign_in_failure(server: str, tool: str, conn: ServerConnection) -> ToolResult:
    needed = conn.sign_in_needed
    reason = str(needed) if needed is not None else "sign-in needed"
    return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
        f"{server}/{tool}: {reason}; the person must sign in to the server again "
        "(Settings › MCP servers, or echo-desk mcp login)",
        N_("The MCP server “{server}” needs you to sign in again (Settings › MCP servers)."), server=server))


def _failed(server: str, tool: str, failure: str) -> str:
    """Why the call has no answer when Echo Desk itself ended the connection (``failure``: why)."""
    return for_person(f"{server}/{tool}: {failure}", N_("Echo Desk ended the connection to the MCP server “{server}”: "
                                                         "{reason}"), server=server, reason=failure)


def _connection_lost(server: str, tool: str, ending: Ending, address: str) -> str:
    """Why the call has no answer, when the connection ended under it (``ending``: how)."""
    if ending is Ending.STOPPED:
        return for_person(f"{server}/{tool}: the server was stopped in Echo Desk before it answered",
                          N_("The MCP server “{server}” was stopped in Echo Desk before it answered."), server=server)
    if ending is Ending.RESTARTED:
        return for_person(f"{server}/{tool}: the server was restarted in Echo Desk before it answered; "
                          "call again to retry",
                          N_("The MCP server “{server}” was restarted in Echo Desk before it answered."),
                          server=server)
    if ending is Ending.UNREACHABLE:
        return for_person(f"{server}/{tool}: the server could not be reached at {address}",
                          N_("The MCP server “{server}” could not be reached at {address}."),
                          server=server, address=address)
    if ending is Ending.CLOSED:
        return for_person(f"{server}/{tool}: the server closed the connection before it answered",
                          N_("The MCP server “{server}” closed the connection before it answered."), server=server)
    return for_person(f"{server}/{tool}: the connection to the server was lost",
                      N_("The connection to the MCP server “{server}” was lost."), server=server)


async def _open_first(server: str, tool: str, exc: MCPError, host: ToolHost) -> ToolResult:
    """A call the server refuses until the person opens some addresses (error -32042): each is
    offered as a URL-mode elicitation, and the model learns what the person chose."""
    wanted = required_elicitations(exc.data)
    if not wanted:
        return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
            f"{server}/{tool}: the server asked for URL elicitations it did not describe",
            N_("The MCP server “{server}” asked you to open addresses it did not name."), server=server))
    answers = [(await ask_to_open(host, server, item.message, item.url)).action for item in wanted]
    if all(action == "accept" for action in answers):
        return ToolResult.fail(ErrorKind.BUSINESS, for_person(
            f"{server}/{tool}: the server needed the person to finish a step in the browser first; it was "
            "opened for them: call the tool again once they say they are done",
            N_("The MCP server “{server}” needed a step in your browser first; it was opened for you. "
               "Tell the agent when you are done, and it can try again."), server=server))
    return ToolResult.fail(ErrorKind.BUSINESS, for_person(
        f"{server}/{tool}: the server needs the person to finish a step in the browser first and they did "
        f"not ({', '.join(answers)})",
        N_("The MCP server “{server}” needs a step in your browser first, and it was not done."), server=server))


async def _lost(manager: CallOwner, server: str, tool: str, conn: ServerConnection) -> ToolResult:
    """The connection ended under the call: the server is shown in error with how (the next call
    connects again), and the call fails saying it."""
    if conn.failure:
        manager.connection_failed(server, conn, conn.failure)
        await conn.end_checked(_END_CHECK_WAIT)
        return ToolResult.fail(ErrorKind.DEPENDENCY, _failed(server, tool, conn.failure))
    ending = await conn.ending()
    url = manager.config_of(server).url
    manager.connection_failed(server, conn, gone_detail(ending, url))
    # What it planted before it ended is said on this call (``call``), not only on the next one.
    await conn.end_checked(_END_CHECK_WAIT)
    return ToolResult.fail(ErrorKind.DEPENDENCY, _connection_lost(server, tool, ending, address_of(url)))


#: How long a call the connection ended under waits for the check of the server's folder after
#: its end (past it, the next call says what that check put aside).
_END_CHECK_WAIT = 5.0


#: The answer to a server that asks the person something while it works on no request of ours.
#: A server's questions that may wait while one of its questions is open; more are refused.
MOST_WAITING_QUESTIONS = 2
TOO_MANY_QUESTIONS = (f"Echo Desk asks the person one question of a server's at a time, with at most "
                      f"{MOST_WAITING_QUESTIONS} waiting; this one came when that many were waiting and was "
                      f"not shown to the person")
UNPROMPTED_QUESTION = ("Echo Desk shows a server's question only while the server works on a request of "
                       "Echo Desk's (a tool call, a resource read, a prompt); this one came during none "
                       "and was not shown to the person")


class CallRouter:
    def __init__(self, manager: CallOwner) -> None:
        self._manager = manager
        #: Hosts of the calls in flight, per server (the last one answers elicitations).
        self._hosts: dict[str, list[ToolHost]] = {}
        #: The person's reads and prompts in flight, per server.
        self._person_requests: collections.Counter[str] = collections.Counter()
        #: Per server: its questions being asked or waiting, and the turn to ask one.
        self._questions: collections.Counter[str] = collections.Counter()
        self._asking: dict[str, asyncio.Lock] = {}

    @contextlib.contextmanager
    def person_request(self, server: str) -> Iterator[None]:
        """A read or a prompt the person asked ``server`` for: it may ask them something meanwhile."""
        self._person_requests[server] += 1
        try:
            yield
        finally:
            self._person_requests[server] -= 1

    async def call(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> ToolResult:
        result = await self._call(server, registry_name, tool, arguments, ctx)
        if result.success:
            return result  # (what was put aside at an end before it is on it: ``_call``)
        # A failed call says, as an answered one does, what the check after the server's end put
        # aside (it may have ended under this call, or on its own before it).
        return self._told_left(server, result, self._manager.take_left(server))

    def _told_left(self, server: str, result: ToolResult, found: tuple[Planted, ...]) -> ToolResult:
        """``result`` saying what the sandboxed ``server`` left that was ``found`` (put aside),
        those the audit log has already recorded marked so; ``result`` itself when nothing was
        found (the folder is looked up only then: finding the data folder makes it, a mkdir)."""
        if not found:
            return result
        config = self._manager.config_of(server)
        recorded = self._manager.take_recorded(server, found)
        return with_planted(result, found, config.allowed_domains, _folder_of(config), recorded)

    async def _call(
        self, server: str, registry_name: str, tool: str, arguments: dict[str, Any], ctx: ToolExecutionContext
    ) -> ToolResult:
        manager = self._manager
        reason = manager.readiness(server, registry_name)
        if reason:
            return ToolResult.fail(ErrorKind.BUSINESS, reason)
        try:
            conn = await manager.ensure_connection(server)
        except ManagerClosed:
            return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
                f"MCP server {server!r} is not available: Echo Desk is closing",
                N_("The MCP server “{server}” is not available: Echo Desk is closing"), server=server))
        if conn is None:
            status = manager.status(server)
            detail = status.detail or deferred(STATE_LABELS[status.state])
            return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
                f"MCP server {server!r} is not available: {detail}",
                N_("The MCP server “{server}” is not available: {detail}"), server=server, detail=detail))
        timeout = manager.config_of(server).timeout
        unreadable = conn.unreadable
        hosts = self._hosts.setdefault(server, [])
        hosts.append(ctx.host)
        try:
            # The whole call is under the timeout, turning the answer into text included (it
            # is capped before anything looks at it, so it cannot outlast the deadline).
            async with asyncio.timeout(timeout):  # no extra task, unlike wait_for on 3.11
                result = await conn.call_tool(tool, arguments)
                converted = convert_result(result, server=server, tool=tool)
                # With what the check after its last process's end put aside (that end was told no one).
                converted = self._told_left(server, converted, (*manager.take_left(server), *await conn.planted()))
        except TimeoutError:
            return ToolResult.fail(ErrorKind.TIMEOUT, for_person(
                f"{server}/{tool} did not answer within {timeout:g} s{conn.unreadable_since(unreadable)}",
                N_("The MCP server “{server}” did not answer within {seconds} s."),
                server=server, seconds=f"{timeout:g}"))
        except MCPError as exc:
            if manager.sign_in_needed(server, conn):
                return _sign_in_failure(server, tool, conn)
            if exc.code == types.URL_ELICITATION_REQUIRED:
                return await _open_first(server, tool, exc, ctx.host)
            if exc.code == types.CONNECTION_CLOSED:
                return await _lost(manager, server, tool, conn)
            return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
                f"{server}/{tool}: the server answered with an error: {exc}",
                N_("The MCP server “{server}” answered with an error: {error}"), server=server, error=str(exc)))
        except RuntimeError as exc:
            if not manager.declares_output_schema(server, registry_name):
                raise
            # The SDK checks structuredContent against the declared outputSchema (a compiled,
            # cached validator; the schema was capped when listed) and refuses what does not match.
            return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
                f"{server}/{tool}: the server's structured result does not match the tool's declared output "
                f"schema: {exc}",
                N_("The MCP server “{server}” sent a result that does not match what the tool declares, so "
                   "Echo Desk did not pass it on to the agent."),
                server=server), metadata={"mcp_server": server, "mcp_tool": tool, "invalid_structured_content": True})
        except ValidationError as exc:
            # The reader's report (English, field by field) is for a developer: the model gets
            # its count, the person what happened to the call.
            return ToolResult.fail(ErrorKind.DEPENDENCY, for_person(
                f"{server}/{tool}: the server sent a malformed result ({exc.error_count()} problems)",
                N_("The MCP server “{server}” sent a result Echo Desk could not read, so nothing of it was "
                   "passed on to the agent."), server=server))
        except (ConnectionError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            if manager.sign_in_needed(server, conn):
                return _sign_in_failure(server, tool, conn)
            return await _lost(manager, server, tool, conn)
        finally:
            hosts.remove(ctx.host)
        return converted

    def elicitation_for(self, server: str) -> ElicitationFnT:
        async def elicit(context: ClientRequestContext,
                         params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
            # One question of a server's at a time, and a few waiting: a server that asks thirty
            # at once opened thirty windows, answered in an order the person could not see.
            if self._questions[server] > MOST_WAITING_QUESTIONS:
                return types.ErrorData(code=types.INVALID_REQUEST, message=TOO_MANY_QUESTIONS)
            # Asked for the one caller whose calls to this server are running as it comes; with
            # several callers (the chat and an app, two apps) the request does not say whose call
            # it belongs to, so it is asked by the app's own host, claiming no caller.
            callers = {id(h): h for h in self._hosts.get(server) or []}
            host: ToolHost = (next(iter(callers.values())) if len(callers) == 1
                              else self._manager.host or NullToolHost())
            self._questions[server] += 1
            try:
                async with self._asking.setdefault(server, asyncio.Lock()):
                    return await self._ask(server, host, params)
            finally:
                self._questions[server] -= 1

        return elicit

    async def _ask(self, server: str, host: ToolHost,
                   params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        # Checked once it is this question's turn: the request it came during may have ended
        # while it waited.
        if not self._hosts.get(server) and self._person_requests[server] <= 0:
            return types.ErrorData(code=types.INVALID_REQUEST, message=UNPROMPTED_QUESTION)
        if isinstance(params, types.ElicitRequestURLParams):
            return await ask_to_open(host, server, params.message, params.url)
        # The server's words as it sent them, cut to a readable size (``question_caps``): every
        # host shows hidden and bidi characters as escapes (``visible``), so the person sees that
        # they are there; dropped, a server's text lost its tell-tale marks and read as cleanly
        # as Echo Desk's own.
        schema = params.requested_schema
        try:
            capped = cap_question(params.message, schema)
        except UnshowableForm as exc:
            log.info("MCP server %s asked a form that was not shown: %s", server, exc)
            return types.ErrorData(code=types.INVALID_PARAMS, message=f"Echo Desk did not show the question: {exc}")
        log.info("MCP server %s asks a question of %d characters, its form of %d fields; %d characters cut before "
                 "it was shown", server, len(params.message), len((schema or {}).get("properties") or {}),
                 capped.chars_cut)
        answer = await host.ask(Question(prompt=capped.prompt, schema=capped.schema, asked_by=f"MCP server {server}",
                                         mcp_server=server, prompt_cut=capped.prompt_cut, form_cuts=capped.form_cuts))
        if answer.action is AnswerAction.ACCEPT:
            return types.ElicitResult(action="accept", content=apply_defaults(schema, capped.restore(dict(answer.values))))
        return types.ElicitResult(action="decline" if answer.action is AnswerAction.DECLINE else "cancel")


def _folder_of(config: ServerConfig) -> str:
    """The folder a sandboxed server works in (the guard's): what it planted is relative to it."""
    return os.path.expanduser(config.cwd) if config.cwd else str(own_folder_of(config.name, sandboxed=True))
