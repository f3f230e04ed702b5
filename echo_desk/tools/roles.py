"""What a tool does, as a role every tool declares (``Tool.role``).

A role says what kind of step a call of the tool is — looking at something, changing it, running
a program — independently of its name and of the language a person asks in. The engine uses it
where the words of a request must not matter: which tools a small model is offered for the
step it said it will take (``providers/local/steering``), and what counts as a change
proposal. It never lowers a tool's risk or skips an approval: ``risk_level`` and the rules do
that.

A plugin declares its own (``role = ToolRole.LOOK``); an MCP tool's comes from its annotations
(``role_from_annotations``); a tool that declares none is ``UNKNOWN`` and is treated as one that
may change anything.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any


class ToolRole(enum.StrEnum):
    #: Reads one thing it is pointed at (a file, a page, a table) and changes nothing.
    LOOK = "look"
    #: Lists what is in a place (a folder's entries, a database's tables).
    LIST = "list"
    #: Finds where a text or a name occurs.
    SEARCH = "search"
    #: Changes what an existing thing holds (an edit of a file's text, a row updated).
    CHANGE = "change"
    #: Adds at the end of an existing thing, keeping what is there.
    APPEND = "append"
    #: Makes something new (a file with given content, a folder, a copy).
    CREATE = "create"
    #: Moves or renames a thing.
    MOVE = "move"
    #: Deletes a thing.
    DELETE = "delete"
    #: Runs a program or a command (what it changes is not known beforehand).
    RUN = "run"
    #: Puts a question to the person.
    ASK = "ask"
    #: Keeps the conversation's own notes (a task list, an echo): touches nothing of the person's.
    NOTE = "note"
    #: Hands a task to a sub-agent.
    DELEGATE = "delegate"
    #: Not declared: treated as one that may change anything.
    UNKNOWN = "unknown"

    @property
    def looks(self) -> bool:
        """Reads without changing anything."""
        return self in LOOKING_ROLES

    @property
    def changes(self) -> bool:
        """Changes the person's things (a file's content, a file's place or existence)."""
        return self in CHANGING_ROLES


LOOKING_ROLES = frozenset({ToolRole.LOOK, ToolRole.LIST, ToolRole.SEARCH})
CHANGING_ROLES = frozenset({ToolRole.CHANGE, ToolRole.APPEND, ToolRole.CREATE, ToolRole.MOVE, ToolRole.DELETE})


def role_from_annotations(annotations: Mapping[str, Any]) -> ToolRole:
    """The role an MCP tool's annotations give it (MCP spec: ``readOnlyHint``, ``destructiveHint``).

    Read-only: it looks. Not read-only: it changes — only adding (``destructiveHint: false``)
    counts as creating, anything else (the spec's default is destructive) as changing what is
    there. No hint at all: unknown. A hint is the server's own claim: it shapes what a small
    model is offered, never whether the person is asked.
    """
    read_only = annotations.get("readOnlyHint")
    if read_only is True:
        return ToolRole.LOOK
    if read_only is False or "destructiveHint" in annotations:
        return ToolRole.CREATE if annotations.get("destructiveHint") is False else ToolRole.CHANGE
    return ToolRole.UNKNOWN
