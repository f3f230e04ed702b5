"""What a tool may ask of the application while it runs.

The desktop app, the terminal CLI and the tests each implement this. Methods may be called
from any thread; the implementation marshals to wherever it needs to be.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, kw_only=True)
class Question:
    """A question for the person.

    Free text when ``choices`` and ``schema`` are empty; a choice list; or a small form from a
    flat JSON schema (``{"type": "object", "properties": {...}}`` with defaults).
    ``mcp_server`` is the configured name of the MCP server asking (its answer goes there);
    empty when the agent asks. Every text in it is untrusted and shown as plain text.
    """

    prompt: str
    choices: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None
    asked_by: str = ""
    mcp_server: str = ""


@dataclass(frozen=True, kw_only=True)
class Answer:
    """The person's answer. ``action`` is ``accept``, ``decline`` or ``cancel``."""

    action: str
    text: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True, kw_only=True)
class TodoItem:
    text: str
    status: str = "pending"  # pending | in_progress | done


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
        return Answer(action="cancel")

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
