"""Tools that talk to the person: ``ask_user`` (a question that suspends the turn) and
``update_todos`` (the agent's short task list, shown as a live checklist)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool, bad
from echo_desk.i18n import for_person, quoted_later
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
    ToolRole,
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
        raise bad(for_person("'form' must be a JSON schema of type object",
                             N_("The agent's form is not a JSON schema of type object.")))
    props = form.get("properties")
    if not isinstance(props, Mapping) or not props:
        raise bad(for_person("'form' needs at least one property", N_("The agent's form has no fields.")))
    if len(props) > MAX_FIELDS:
        raise bad(for_person(f"'form' may have at most {MAX_FIELDS} fields",
                             N_("The agent's form has more than {limit} fields."), limit=MAX_FIELDS))
    for key, field in props.items():
        if not isinstance(field, Mapping) or field.get("type") not in _FIELD_TYPES:
            raise bad(for_person(f"form field {key!r} must have a type among {sorted(_FIELD_TYPES)} (no nesting)",
                                 N_("The field {field} of the agent's form has a type that cannot be asked."),
                                 field=quoted_later(str(key))))
        unknown = set(field) - _FIELD_KEYS
        if unknown:
            raise bad(for_person(f"form field {key!r} has unsupported keywords: {', '.join(sorted(unknown))}",
                                 N_("The field {field} of the agent's form has settings that are not supported: "
                                    "{keywords}"), field=quoted_later(str(key)), keywords=tuple(sorted(unknown))))
    required = form.get("required", [])
    if not isinstance(required, list) or not set(required) <= set(props):
        raise bad(for_person("'form.required' must list form fields",
                             N_("The agent's form requires fields it does not have.")))
    return {"type": "object", "properties": dict(props), "required": list(required)}


class AskArguments(Arguments):
    question: Annotated[str, Field(min_length=1, max_length=MAX_QUESTION)]
    choices: Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]] | None,
                       Field(max_length=MAX_CHOICES)] = None
    form: Annotated[dict[str, Any] | None, Field(description="Flat JSON schema of the values to collect.")] = None


class AskUser(BuiltinTool[AskArguments], ElicitationTool):
    name = "ask_user"
    role = ToolRole.ASK
    description = (
        "Ask the person a question and wait for the answer. Use only when you cannot proceed "
        "without their input. Give 'choices' for a pick-one question, or 'form' (a flat JSON schema "
        "whose properties are strings, numbers, integers or booleans, with optional defaults) to "
        "collect several values at once."
    )
    arguments = AskArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 3600.0  # a person may take a while to answer
    capabilities = frozenset({"ask"})
    title = N_("Ask me")
    catalog_description = N_("Lets the agent ask you a question and wait for your answer.")

    async def execute_parsed(self, args: AskArguments, ctx: ToolExecutionContext) -> ToolResult:
        prompt = args.question
        raw_choices = args.choices or []
        form = check_form(args.form) if args.form is not None else None
        if form and raw_choices:
            raise bad(for_person("give either 'choices' or 'form', not both",
                                 N_("The agent gave both choices and a form; a question has one or the other.")))
        question = Question(prompt=prompt, choices=tuple(raw_choices), schema=form,
                            asked_by=ctx.scope_label or "agent")
        answer = await ctx.host.ask(question)
        if answer.action is AnswerAction.CANCEL:
            raise CancelledByUser(for_person("the person dismissed the question", N_("You dismissed the question.")))
        if not answer.accepted:
            return ToolResult.ok("The person declined to answer.", metadata={"action": answer.action.value})
        if form is not None:
            values = {k: v.get("default") for k, v in form["properties"].items() if "default" in v}
            values.update(answer.values)
            return ToolResult.ok(json.dumps(values, ensure_ascii=False),
                                 metadata={"action": "accept", "values": values})
        return ToolResult.ok(answer.text, metadata={"action": "accept"})


class Todo(Arguments):
    text: Annotated[str, Field(min_length=1, max_length=200)]
    # The status's spelling comes from TodoStatus; a string names it (JSON has no enums).
    status: Annotated[TodoStatus, Field(strict=False)] = TodoStatus.PENDING


class TodosArguments(Arguments):
    todos: Annotated[list[Todo], Field(max_length=MAX_TODOS)]


class UpdateTodos(BuiltinTool[TodosArguments]):
    name = "update_todos"
    role = ToolRole.NOTE
    description = (
        "Replace your task list for this conversation (shown to the person as a live checklist). "
        "Send the whole list each time; mark at most one item in_progress."
    )
    arguments = TodosArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 5.0
    idempotent = True
    capabilities = frozenset({"todos"})
    title = N_("Task list")
    catalog_description = N_("Lets the agent keep a short checklist of its steps, shown beside the chat.")

    async def execute_parsed(self, args: TodosArguments, ctx: ToolExecutionContext) -> ToolResult:
        items = [TodoItem(text=todo.text, status=todo.status) for todo in args.todos]
        if sum(1 for i in items if i.status is TodoStatus.IN_PROGRESS) > 1:
            raise bad(for_person("mark at most one item in_progress",
                                 N_("The agent marked more than one step as in progress.")))
        ctx.host.todos_updated(ctx.scope_id, tuple(items))
        marks = {TodoStatus.PENDING: "[ ]", TodoStatus.IN_PROGRESS: "[~]", TodoStatus.DONE: "[x]"}
        listing = "\n".join(f"{marks[i.status]} {i.text}" for i in items) or "(empty list)"
        done = sum(1 for i in items if i.status is TodoStatus.DONE)
        return ToolResult.ok(f"Task list updated: {done} of {len(items)} done.\n{listing}",
                             metadata={"count": len(items), "done": done})
