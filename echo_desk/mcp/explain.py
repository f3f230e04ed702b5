"""Why a server failed, in the person's words: a server's row says it in the language of the moment.

An exception's text is written for a developer, in English ("Connection closed", "All connection
attempts failed", a pydantic report): put on a server's row as it was, the person read it so
in any language. Each failure Echo Desk can name is said in a sentence of its own (``deferred``,
so a language switch translates it again); for the rest the text is quoted, labelled as what it
is: the server's own words (an error it answered with) or technical detail.

What is not MCP's (the system's refusal, the technical detail for a report) lives in
``echo_desk.common.explain``: the window and the model providers say their failures with it too.
"""

from __future__ import annotations

import json

import httpx2
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from echo_desk.common.explain import MOST_QUOTED, refused
from echo_desk.i18n import N_, Deferred, deferred


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def explained(exc: BaseException, *, quote_detail: bool = True) -> str:
    """``exc`` as a person reads it (``deferred``). Of a group (the SDK's task groups wrap what
    failed), the first failure: the others are most often what it brought down.

    ``quote_detail=False`` for a sentence shown in a label: a failure Echo Desk cannot name is
    said so without quoting the developer's English, which ``technical_detail`` keeps for a
    tooltip or a details view."""
    leaves = _leaves(exc)
    return _one(leaves[0], quote_detail) if leaves else deferred(N_("the connection ended"))


def _one(exc: BaseException, quote_detail: bool = True) -> str:
    # Echo Desk's own errors that already speak to the person (``deferred``) say it as they are.
    if exc.args and isinstance(exc.args[0], Deferred):
        return exc.args[0]
    seconds = getattr(exc, "seconds", None)
    if isinstance(exc, TimeoutError) and isinstance(seconds, float | int):  # ``HandshakeTimeout``
        return deferred(N_("the server did not answer the MCP handshake within {seconds} s"), seconds=f"{seconds:g}")
    if isinstance(exc, TimeoutError):
        return deferred(N_("the server did not answer in time"))
    if isinstance(exc, FileNotFoundError):
        return deferred(N_("command not found: {command}"), command=str(exc.filename or exc)[:MOST_QUOTED])
    if isinstance(exc, MCPError):
        if exc.code == types.CONNECTION_CLOSED:
            return deferred(N_("the connection to the server was lost"))
        return deferred(N_("the server answered with an error: {error}"), error=exc.message[:MOST_QUOTED])
    if isinstance(exc, httpx2.HTTPStatusError):
        return deferred(N_("the server answered with HTTP status {status}"), status=exc.response.status_code)
    if isinstance(exc, httpx2.ConnectError):
        return deferred(N_("the server could not be reached"))
    if isinstance(exc, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError | httpx2.CloseError):
        return deferred(N_("the server closed the connection"))
    if isinstance(exc, ValidationError):
        return deferred(N_("the server sent a message Echo Desk could not read ({count} problems)"),
                        count=exc.error_count())
    if isinstance(exc, json.JSONDecodeError):
        return deferred(N_("it is not valid JSON (line {line}, column {column})"), line=exc.lineno, column=exc.colno)
    if isinstance(exc, OSError) and (exc.errno or exc.strerror):
        return refused(exc, quote_detail=quote_detail)
    if not quote_detail:
        return deferred(N_("an error Echo Desk did not expect"))
    return deferred(N_("it failed; technical detail: {error}"), error=(str(exc) or type(exc).__name__)[:MOST_QUOTED])


def with_unreadable(reason: str, count: int, why: str) -> str:
    """``reason``, and that ``count`` messages of the server's could not be read (they may have
    been the answer); ``why``: the reader's own words for the last, technical detail."""
    if count <= 0:
        return reason
    if count == 1:
        return deferred(N_("{reason}; it sent 1 message Echo Desk could not read ({why})"), reason=reason, why=why)
    return deferred(N_("{reason}; it sent {count} messages Echo Desk could not read ({why})"),
                    reason=reason, count=count, why=why)
