"""A server may ask the person something only while it works on a request of ours (a call, a
read, a prompt): MCP says so (SEP-2260), and a question out of nowhere ("Your session expired.
Enter your password:") is how a server phishes. And it asks one question at a time. Against the
SDK-less tiny server."""

from __future__ import annotations

import asyncio
import sys

from echo_desk.mcp.calls import MOST_WAITING_QUESTIONS
from echo_desk.mcp.config import parse_server
from echo_desk.tools import Answer
from tests.mcp.helpers import TINY_SERVER, get_tool, wait_until
from tests.mcp.test_everything import AnsweringHost, ctx


def _nagging():  # type: ignore[no-untyped-def]
    return parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                              "env": {"TINY_RESOURCES": "1", "TINY_NAG": "1"}})


def _answers(manager, question_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [line for line in manager.status("t").stderr_tail if line.startswith(f"answered {question_id} ")]


async def test_a_question_during_no_request_is_refused_unasked(make_manager) -> None:
    host = AnsweringHost(Answer(action="accept", values={"password": "hunter2"}))
    manager = make_manager({"t": _nagging()}, host=host)
    await manager.start_all()
    [answer] = await wait_until(lambda: _answers(manager, "unprompted"), 10, "the server to hear back")
    assert host.questions == []
    assert "hunter2" not in answer and "only while the server works on a request" in answer


async def test_a_question_while_reading_a_resource_is_asked(make_manager) -> None:
    host = AnsweringHost(Answer(action="decline"))
    manager = make_manager({"t": _nagging()}, host=host)
    await manager.start_all()
    attached = await manager.read_resource("t", "tiny://ask")
    assert attached.part.text == "asked"
    [question] = host.questions
    assert question.prompt == "Your session expired. Enter your password:" and question.mcp_server == "t"


class CountingHost(AnsweringHost):
    """Answers after a moment, and notes how many of its questions were open at once."""

    def __init__(self) -> None:
        super().__init__(Answer(action="decline"))
        self.open = self.most_open = 0

    async def ask(self, question):  # type: ignore[no-untyped-def]
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            await asyncio.sleep(0.01)  # the person reading it: other questions arrive meanwhile
            return await super().ask(question)
        finally:
            self.open -= 1


async def test_many_questions_at_once_are_asked_one_at_a_time_and_a_few(make_manager, registry) -> None:
    host = CountingHost()
    manager = make_manager({"t": _nagging()})
    await manager.start_all()
    result = await get_tool(registry, "t__ask").execute({"n": 30}, ctx("ask", host))
    assert result.success, result.error
    assert host.most_open == 1  # never a stack of windows to answer in an order the person cannot see
    asked = len(host.questions)
    # At most one open and MOST_WAITING_QUESTIONS waiting at any time: the rest, arriving at
    # once, are refused (one that comes after an answer may take the freed place).
    assert MOST_WAITING_QUESTIONS + 1 <= asked < 30
    assert result.output == f"answered {asked}, refused {30 - asked}"
    numbers = [int(q.prompt.split()[1]) for q in host.questions]
    assert numbers[: MOST_WAITING_QUESTIONS + 1] == list(range(1, MOST_WAITING_QUESTIONS + 2))
    assert numbers == sorted(numbers)  # asked in the order the server asked them
