"""ask_user (questions that suspend the turn) and update_todos (the live checklist)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import pytest
from tool_test_helpers import MakeCtx, RecordingHost

from echo_desk.builtins import AskUser, UpdateTodos
from echo_desk.tools import Answer, CancelledByUser, ElicitationTool, ErrorKind, Question


@dataclass
class _SlowHost(RecordingHost):
    """Answers only once the test releases it: the turn is suspended meanwhile."""

    gate: asyncio.Event | None = None
    asked: asyncio.Event | None = None

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        assert self.gate is not None and self.asked is not None
        self.asked.set()
        await self.gate.wait()
        return Answer(action="accept", text="blue")


async def test_ask_user_suspends_until_the_host_answers(make_ctx: MakeCtx) -> None:
    host = _SlowHost(gate=asyncio.Event(), asked=asyncio.Event())
    task = asyncio.create_task(AskUser().execute({"question": "Colour?"}, make_ctx("ask_user", host=host)))
    await asyncio.wait_for(host.asked.wait(), 5)  # type: ignore[union-attr]
    assert not task.done()
    host.gate.set()  # type: ignore[union-attr]
    result = await asyncio.wait_for(task, 5)
    assert result.output == "blue" and host.questions[0].prompt == "Colour?"
    assert isinstance(AskUser(), ElicitationTool)


async def test_ask_user_form_fills_defaults_and_validates(make_ctx: MakeCtx) -> None:
    form = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 30},
                                             "ok": {"type": "boolean", "default": True}}, "required": ["name"]}
    host = RecordingHost(answers=[Answer(action="accept", values={"name": "Li", "age": 41})])
    result = await AskUser().execute({"question": "Who?", "form": form}, make_ctx("ask_user", host=host))
    assert json.loads(result.output) == {"name": "Li", "age": 41, "ok": True}
    assert host.questions[0].schema is not None and host.questions[0].schema["required"] == ["name"]
    nested = {"type": "object", "properties": {"x": {"type": "object"}}}
    bad = await AskUser().execute({"question": "?", "form": nested}, make_ctx("ask_user"))
    assert bad.error_kind is ErrorKind.VALIDATION and "no nesting" in bad.error
    both = await AskUser().execute({"question": "?", "form": form, "choices": ["a"]}, make_ctx("ask_user"))
    assert both.error_kind is ErrorKind.VALIDATION


async def test_ask_user_decline_and_cancel(make_ctx: MakeCtx) -> None:
    host = RecordingHost(answers=[Answer(action="decline")])
    declined = await AskUser().execute({"question": "?"}, make_ctx("ask_user", host=host))
    assert declined.success and "declined" in declined.output
    with pytest.raises(CancelledByUser):
        await AskUser().execute({"question": "?"}, make_ctx("ask_user", host=RecordingHost()))


async def test_update_todos_reaches_the_host(make_ctx: MakeCtx, host: RecordingHost) -> None:
    todos = [{"text": "read", "status": "done"}, {"text": "edit", "status": "in_progress"}, {"text": "test"}]
    result = await UpdateTodos().execute({"todos": todos}, make_ctx("update_todos"))
    assert result.output.splitlines() == ["Task list updated: 1 of 3 done.", "[x] read", "[~] edit", "[ ] test"]
    scope, items = host.todos[0]
    assert scope == "scope-1" and [i.status for i in items] == ["done", "in_progress", "pending"]
    two = await UpdateTodos().execute({"todos": [{"text": "a", "status": "in_progress"}] * 2}, make_ctx("update_todos"))
    assert two.error_kind is ErrorKind.VALIDATION and len(host.todos) == 1
    odd = await UpdateTodos().execute({"todos": [{"text": "a", "status": "later"}]}, make_ctx("update_todos"))
    assert odd.error_kind is ErrorKind.VALIDATION
    cleared = await UpdateTodos().execute({"todos": []}, make_ctx("update_todos"))
    assert cleared.success and host.todos[-1][1] == ()
