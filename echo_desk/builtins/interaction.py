"""Tools that talk to the person: ``ask_user`` (a question that suspends the turn) and
``update_todos`` (the agent's short task list, shown as a live checklist)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.builtins.common import BuiltinTool, bad, get_str
from echo_desk.tools import (
    N_,
    AnswerAction,
    CancelledByUser,
    ElicitationTool,
    Question,
    RiskLevel,
    TodoItem,
    TodoStatus,
    ToolExecutionContext,
    ToolResult,
)

MAX_QUESTION = 2000
MAX_CHOICES = 20
MAX_FIELDS = 20
_FIELD_TYPES = frozenset({"string", "number", "integer", "boolean"})
_FIELD_KEYS = frozenset({"type", "title", "description", "default", "enum", "minimum", "maximum",
                         "minLength", "maxLength"})
MAX_TODOS = 50
TODO_STATUSES = tuple(status.value for status in TodoStatus)


def check_form(form: object) -> dict[str, Any]:
    """A flat form schema (object of string/number/integer/boolean fields) or a validation error."""
    if not isinstance(form, Mapping) or form.get("type", "object") != "object":
        raise bad("'form' must be a JSON schema of type object")
    props = form.get("properties")
    if not isinstance(props, Mapping) or not props:
        raise bad("'form' needs at least one property")
    if len(props) > MAX_FIELDS:
        raise bad(f"'form' may have at most {MAX_FIELDS} fields")
    for key, field in props.items():
        if not isinstance(field, Mapping) or field.get("type") not in _FIELD_TYPES:
            raise bad(f"form field {key!r} must have a type among {sorted(_FIELD_TYPES)} (no nesting)")
        unknown = set(field) - _FIELD_KEYS
        if unknown:
            raise bad(f"form field {key!r} has unsupported keywords: {', '.join(sorted(unknown))}")
    required = form.get("required", [])
    if not isinstance(required, list) or not set(required) <= set(props):
        raise bad("'form.required' must list form fields")
    return {"type": "object", "properties": dict(props), "required": list(required)}


class AskUser(BuiltinTool, ElicitationTool):
    name = "ask_user"
    description = (
        "Ask the person a question and wait for the answer. Use only when you cannot proceed "
        "without their input. Give 'choices' for a pick-one question, or 'form' (a flat JSON schema "
        "whose properties are strings, numbers, integers or booleans, with optional defaults) to "
        "collect several values at once."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION},
            "choices": {"type": "array", "maxItems": MAX_CHOICES,
                        "items": {"type": "string", "minLength": 1, "maxLength": 200}},
            "form": {"type": "object", "description": "Flat JSON schema of the values to collect."},
        },
        "required": ["question"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.READ
    timeout_seconds = 3600.0  # a person may take a while to answer
    capabilities = frozenset({"ask"})
    title = N_("Ask me")
    catalog_description = N_("Lets the agent ask you a question and wait for your answer.")

    async def run(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        prompt = get_str(params, "question", max_len=MAX_QUESTION)
        raw_choices = params.get("choices") or []
        if not isinstance(raw_choices, list) or len(raw_choices) > MAX_CHOICES or not all(
            isinstance(c, str) and 0 < len(c) <= 200 for c in raw_choices
        ):
            raise bad(f"'choices' must be a list of at most {MAX_CHOICES} non-empty strings (≤ 200 characters)")
        form = check_form(params["form"]) if params.get("form") is not None else None
        if form and raw_choices:
            raise bad("give either 'choices' or 'form', not both")
        question = Question(prompt=prompt, choices=tuple(raw_choices), schema=form,
                            asked_by=ctx.scope_label or "agent")
        answer = await ctx.host.ask(question)
        if answer.action is AnswerAction.CANCEL:
            raise CancelledByUser("the person dismissed the question")
        if not answer.accepted:
            return ToolResult.ok("The person declined to answer.", metadata={"action": answer.action.value})
        if form is not None:
            values = {k: v.get("default") for k, v in form["properties"].items() if "default" in v}
            values.update(answer.values)
            return ToolResult.ok(json.dumps(values, ensure_ascii=False),
                                 metadata={"action": "accept", "values": values})
        return ToolResult.ok(answer.text, metadata={"action": "accept"})


class UpdateTodos(BuiltinTool):
    name = "update_todos"
    description = (
        "Replace your task list for this conversation (shown to the person as a live checklist). "
        "Send the whole list each time; mark at most one item in_progress."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "maxItems": MAX_TODOS,
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "minLength": 1, "maxLength": 200},
                        "status": {"type": "string", "enum": list(TODO_STATUSES), "default": "pending"},
                    },
                    "required": ["text"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.READ
    timeout_seconds = 5.0
    idempotent = True
    capabilities = frozenset({"todos"})
    title = N_("Task list")
    catalog_description = N_("Lets the agent keep a short checklist of its steps, shown beside the chat.")

    async def run(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        raw = params.get("todos")
        if raw is None:
            raise bad("missing required argument 'todos'")
        if not isinstance(raw, list) or len(raw) > MAX_TODOS:
            raise bad(f"'todos' must be a list of at most {MAX_TODOS} items")
        items: list[TodoItem] = []
        for number, entry in enumerate(raw, start=1):
            if not isinstance(entry, Mapping) or set(entry) - {"text", "status"}:
                raise bad(f"todo {number} must be an object with 'text' and 'status'")
            text = get_str(entry, "text", max_len=200)
            status = entry.get("status", "pending")
            if status not in TODO_STATUSES:
                raise bad(f"todo {number}: status must be one of {', '.join(TODO_STATUSES)}")
            items.append(TodoItem(text=text, status=status))
        if sum(1 for i in items if i.status is TodoStatus.IN_PROGRESS) > 1:
            raise bad("mark at most one item in_progress")
        ctx.host.todos_updated(ctx.scope_id, tuple(items))
        marks = {TodoStatus.PENDING: "[ ]", TodoStatus.IN_PROGRESS: "[~]", TodoStatus.DONE: "[x]"}
        listing = "\n".join(f"{marks[i.status]} {i.text}" for i in items) or "(empty list)"
        done = sum(1 for i in items if i.status is TodoStatus.DONE)
        return ToolResult.ok(f"Task list updated: {done} of {len(items)} done.\n{listing}",
                             metadata={"count": len(items), "done": done})
