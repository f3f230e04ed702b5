"""What a tool may ask of the application while it runs.

The desktop app, the terminal CLI and the tests each implement this. Methods may be called
from any thread; the implementation marshals to wherever it needs to be.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

#: The texts of a form field a host shows: its title, its description, its default value.
FormText = Literal["title", "description", "default"]


@dataclass(frozen=True, kw_only=True)
class Question:
    """A question for the person.

    Free text when ``choices`` and ``schema`` are empty; a choice list; or a small form from a
    flat JSON schema (``{"type": "object", "properties": {...}}`` with defaults).
    ``mcp_server`` is the configured name of the MCP server asking (its answer goes there);
    empty when the agent asks. Every text in it is untrusted and shown as plain text.
    ``url``: the asker wants the person to open this address (an MCP server's URL-mode
    elicitation). It is shown in full; accepting means "open it", and the host opens it in the
    browser only then.
    ``prompt_cut`` and ``form_cuts``: how many characters of the asker's text were left out
    before the question reached the host (an MCP server's is capped in the core), of the prompt
    and of each field's texts by (property name, which text); the host says so where each ends.
    A field's ``enum`` may come with ``enumNames``, one title a choice, shown in their place
    (``choice_titles``); the answer holds the value. A field of several choices
    (``"type": "array"``) has them in its ``items`` the same way (``common.multi_choice.MultiChoice``);
    the answer holds a list of values.
    """

    prompt: str
    choices: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None
    asked_by: str = ""
    mcp_server: str = ""
    url: str = ""
    #: The app (a gateway client, by its display name) during whose call the server asks;
    #: empty in Echo Desk's own chat.
    client: str = ""
    prompt_cut: int = 0
    form_cuts: Mapping[tuple[str, FormText], int] = field(default_factory=dict)


def choice_titles(spec: Mapping[str, Any]) -> list[str]:
    """What each of a form field's ``enum`` choices is shown as: its title from ``enumNames``
    when there is one for each, else the value itself."""
    values, titles = list(spec["enum"]), spec.get("enumNames")
    if isinstance(titles, list) and len(titles) == len(values) and all(isinstance(t, str) for t in titles):
        return titles
    return [str(value) for value in values]


class AnswerAction(enum.StrEnum):
    """How the person answered a question."""

    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


class TodoStatus(enum.StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"


@dataclass(frozen=True, kw_only=True)
class Answer:
    """The person's answer (``action`` may be given as its string value; it is kept as the enum)."""

    action: AnswerAction
    text: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", AnswerAction(self.action))  # a bad value raises here

    @property
    def accepted(self) -> bool:
        return self.action is AnswerAction.ACCEPT


@dataclass(frozen=True, kw_only=True)
class TodoItem:
    """One line of the agent's task list (``status`` may be given as its string value)."""

    text: str
    status: TodoStatus = TodoStatus.PENDING

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", TodoStatus(self.status))  # a bad value raises here


@runtime_checkable
class ToolHost(Protocol):
    """The part of the application a running tool can reach."""

    async def ask(self, question: Question) -> Answer: ...

    async def acquire_editor(self, path: str) -> bool:
        """Ask the editor that has ``path`` open to let go of it; ``False`` means it won't."""
        ...

    def release_editor(self, path: str) -> None: ...

    def file_mutated(self, path: str) -> None: ...

    def set_activity(self, text: str | None) -> None: ...

    def tool_output(self, call_id: str, text: str) -> None: ...

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None: ...


class NullToolHost:
    """A host with nobody behind it: questions are cancelled, everything else is ignored."""

    async def ask(self, question: Question) -> Answer:
        return Answer(action=AnswerAction.CANCEL)

    async def acquire_editor(self, path: str) -> bool:
        return True

    def release_editor(self, path: str) -> None:
        return None

    def file_mutated(self, path: str) -> None:
        return None

    def set_activity(self, text: str | None) -> None:
        return None

    def tool_output(self, call_id: str, text: str) -> None:
        return None

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        return None
