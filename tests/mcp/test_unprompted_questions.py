"""A server may ask the person something only while it works on a request of ours (a call, a
read, a prompt): MCP says so (SEP-2260), and a question out of nowhere ("Your session expired.
Enter your password:") is how a server phishes. Against the SDK-less tiny server."""

from __future__ import annotations

import sys

from echo_desk.mcp.config import parse_server
from echo_desk.tools import Answer
from tests.mcp.helpers import TINY_SERVER, wait_until
from tests.mcp.test_everything import AnsweringHost


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
