"""Statuses and answers are enums in the engine; the UI translates them, it never folds spellings."""

from __future__ import annotations

import pytest

from echo_desk.agent.status import ToolStatus
from echo_desk.tools import Answer, AnswerAction, ErrorKind, TodoItem, TodoStatus


def test_an_answer_given_as_text_is_kept_as_the_enum_and_a_bad_one_is_refused():
    assert Answer(action="accept").action is AnswerAction.ACCEPT and Answer(action="accept").accepted
    assert not Answer(action=AnswerAction.DECLINE).accepted
    with pytest.raises(ValueError):
        Answer(action="ok")


def test_a_todo_status_is_an_enum_and_a_bad_one_is_refused():
    assert TodoItem(text="x", status="in_progress").status is TodoStatus.IN_PROGRESS
    assert TodoItem(text="x").status is TodoStatus.PENDING
    with pytest.raises(ValueError):
        TodoItem(text="x", status="completed")


@pytest.mark.parametrize(("ok", "kind", "status"), [
    (True, None, ToolStatus.DONE),
    (False, ErrorKind.REJECTED, ToolStatus.DENIED),
    (False, "cancelled", ToolStatus.CANCELLED),  # as stored in a conversation's envelope
    (False, ErrorKind.INTERNAL, ToolStatus.FAILED),
    (False, "", ToolStatus.FAILED),
])
def test_the_final_status_follows_the_envelope(ok, kind, status):
    assert ToolStatus.of_result(ok, kind) is status
    assert status.finished
    assert not ToolStatus.RUNNING.finished and not ToolStatus.WAITING_APPROVAL.finished


def test_a_tool_source_is_typed_and_keeps_its_stored_spelling():
    from echo_desk.agent.sources import SourceKind, ToolSource

    memory = ToolSource.mcp("memory")
    assert memory == "mcp:memory" and memory.kind is SourceKind.MCP and memory.server == "memory"
    assert ToolSource("mcp:memory") == memory and ToolSource(memory).server == "memory"
    named = ToolSource("plugin:acme")
    assert named.kind is SourceKind.PLUGIN and named.name == "acme" and named.server == ""
    assert ToolSource.builtin().kind is SourceKind.BUILTIN
    for bad in ("mcp:", "builtin:x", "magic", ""):
        with pytest.raises(ValueError):
            ToolSource(bad)


def test_the_registry_keeps_sources_typed():
    from echo_desk.agent.registry import ToolRegistry
    from echo_desk.agent.sources import SourceKind
    from echo_desk.builtins.echo import EchoText

    registry = ToolRegistry()
    assert registry.register(EchoText(), source="mcp:memory").ok
    (entry,) = registry.entries()
    assert entry.source.kind is SourceKind.MCP and entry.source.server == "memory"
