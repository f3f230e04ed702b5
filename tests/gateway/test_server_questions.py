"""A downstream MCP server's question (elicitation) during a gateway client's call: asked in Echo
Desk's window, saying for which app, and the answer goes back to the server; the agent's own
``ask_user`` is not asked for a client (the client has its own way to ask its user)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from echo_desk.store.settings import ToolPolicy
from echo_desk.tools.host import Answer, AnswerAction, Question
from tests.mcp.helpers import wait_until

from .conftest import App, gateway_command, write_servers


@pytest.fixture
def servers() -> dict[str, Any]:
    return write_servers(time_server=False, everything=False, fault=True)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


@pytest.mark.parametrize("action", [AnswerAction.ACCEPT, AnswerAction.DECLINE])
async def test_a_servers_question_during_a_clients_call_is_asked_in_echo_desk(
        app: App, gateway_env: dict[str, str], action: AnswerAction) -> None:
    asked: list[Question] = []

    async def ask(question: Question) -> Answer:
        asked.append(question)
        return Answer(action=action, values={"guests": 3, "note": "by the window"} if action is AnswerAction.ACCEPT
                      else {})

    app.person.ask = ask  # type: ignore[method-assign]
    app.runtime.settings.set_tool("fault__book", policy=ToolPolicy.ALWAYS)
    command = gateway_command("cursor")
    async with Client(StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)) as client:
        result = await client.call_tool("fault__book", {})
    assert [(q.mcp_server, q.client) for q in asked] == [("fault", "Cursor")]
    assert "How many guests" in asked[0].prompt
    if action is AnswerAction.ACCEPT:
        assert _text(result) == "booked for 3 (by the window)"
    else:
        assert _text(result) == "not booked: decline"


async def test_while_two_apps_call_the_server_its_question_claims_neither(app: App, gateway_env: dict[str, str]) -> None:
    """The server's request does not say which call it belongs to: with Cursor's and Claude's
    calls both running, it is not put in either app's name (here the app has no window of its
    own to ask in, so it is cancelled: the server is told, nothing is answered for anyone)."""
    import asyncio

    asked: list[Question] = []
    first_asked = asyncio.Event()
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def ask(question: Question) -> Answer:
        asked.append(question)
        loop.call_soon_threadsafe(first_asked.set)
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(release.wait(), loop))
        return Answer(action=AnswerAction.ACCEPT, values={"guests": 2})

    app.person.ask = ask  # type: ignore[method-assign]
    app.runtime.settings.set_tool("fault__book", policy=ToolPolicy.ALWAYS)
    cursor, claude = gateway_command("cursor"), gateway_command("claude-code")
    async with (Client(StdioServerParameters(command=cursor[0], args=cursor[1:], env=gateway_env)) as first,
                Client(StdioServerParameters(command=claude[0], args=claude[1:], env=gateway_env)) as second):
        first_call = asyncio.ensure_future(first.call_tool("fault__book", {}))
        await asyncio.wait_for(first_asked.wait(), 30)
        second_call = asyncio.ensure_future(second.call_tool("fault__book", {}))
        # A server's questions are asked one at a time: Claude's waits behind Cursor's.
        questions = app.runtime.mcp._router._questions  # type: ignore[union-attr]
        await wait_until(lambda: questions["fault"] == 2, 30, "Claude's question to wait its turn")
        release.set()
        first_result = await asyncio.wait_for(first_call, 30)
        second_result = await asyncio.wait_for(second_call, 30)
    assert [(q.mcp_server, q.client) for q in asked] == [("fault", "Cursor")]
    assert _text(second_result) == "not booked: cancel"
    assert _text(first_result) == "booked for 2 (window seat)"
