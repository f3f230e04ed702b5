"""URL-mode elicitation: a server asks the person to open an address (a payment, a third-party
sign-in, a key typed on the server's own page) instead of passing the data through Echo Desk.

The person sees the message and the address in full and decides; only an accepted address is
opened, by the host, and only an http(s) one without a user name in it (``https://bank@evil``
reads as the bank). Echo Desk never fetches it itself.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import mcp_types as types
from pydantic import ValidationError

from echo_desk.mcp.question_caps import cap_message
from echo_desk.mcp.sanitize import strip_hidden
from echo_desk.tools import AnswerAction, Question, ToolHost

log = logging.getLogger(__name__)

#: Longer addresses are refused: nobody can read them before agreeing to open them.
MAX_URL_CHARS = 4096


def openable(url: str) -> bool:
    """Whether Echo Desk may offer to open ``url``: http(s), a host, no user name or password,
    no hidden characters, not absurdly long."""
    if len(url) > MAX_URL_CHARS or strip_hidden(url)[1] or any(ord(c) < 0x21 for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc


def as_reached(url: str) -> str | None:
    """``url`` with its host name as the browser reaches it: a Unicode name in its IDNA
    (``xn--``) form, so a lookalike (``аpple.com``, a Cyrillic ``а``) does not read as the name it
    mimics; the address shown is the one opened. ``None`` when the name has no such form."""
    parts = urlsplit(url)
    name = parts.hostname or ""
    if name.isascii():
        return url
    try:
        ascii_name = name.encode("idna").decode("ascii")
        port = parts.port
    except (UnicodeError, ValueError):
        return None
    return urlunsplit((parts.scheme, ascii_name + (f":{port}" if port is not None else ""), parts.path,
                       parts.query, parts.fragment))


async def ask_to_open(host: ToolHost, server: str, message: str, url: str) -> types.ElicitResult:
    """Ask the person whether to open ``url`` for ``server``; an address that cannot be shown
    honestly is declined without asking."""
    reached = as_reached(url) if openable(url) else None
    if reached is None or not openable(reached):
        return types.ElicitResult(action="decline")
    url = reached
    # As sent, cut to a readable size: the host shows its hidden characters as escapes (see ``calls``).
    prompt, prompt_cut = cap_message(message)
    log.info("MCP server %s asks to open an address, with a message of %d characters (%d cut before it was shown)",
             server, len(message), prompt_cut)
    answer = await host.ask(Question(prompt=prompt, url=url, asked_by=f"MCP server {server}",
                                     mcp_server=server, prompt_cut=prompt_cut))
    if answer.action is AnswerAction.ACCEPT:
        return types.ElicitResult(action="accept")
    return types.ElicitResult(action="decline" if answer.action is AnswerAction.DECLINE else "cancel")


def required_elicitations(data: Any) -> list[types.ElicitRequestURLParams]:
    """The URL elicitations of a ``-32042`` error (a call that needs them done first); none
    when the data is not what the specification says."""
    raw = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return []
    out: list[types.ElicitRequestURLParams] = []
    for item in raw[:5]:  # a server cannot queue up a stream of dialogs
        try:
            out.append(types.ElicitRequestURLParams.model_validate(item))
        except ValidationError:
            continue
    return out
