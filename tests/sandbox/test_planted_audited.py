"""A sandboxed ``run_command`` that plants something, run through the dispatcher: its audit row
records each entry (full path, what was done, where it is kept), as its card in the chat does."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox_helpers import Jail, requires_bwrap, tool_with

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.tools.planted import Change, planted_of
from echo_desk.tools.planted_told import MOST_NAMED
from tests.agent.fakes import make_engine

pytestmark = requires_bwrap


async def test_planted_editor_tasks_are_in_the_calls_audit_row_with_their_full_path(jail: Jail, tmp_path: Path) -> None:
    dispatcher, _schemas, _settings = make_engine(tmp_path, tool_with())
    scope = Scope(label="conversation", workspace_roots=(jail.workspace,))
    # An editor's tasks that run when the folder is opened.
    command = "mkdir .vscode && printf '{\"tasks\": []}' > .vscode/tasks.json"
    try:
        envelope = await dispatcher.execute_tool(
            ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": command})), scope,
            ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
        assert envelope.ok and envelope.metadata["sandbox"]["sandboxed"] is True, envelope.content
        assert dispatcher.audit is not None
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    [tasks] = planted_of(row["planted"])
    assert tasks.path == str(jail.workspace / ".vscode") and tasks.change is Change.CREATED
    assert (Path(tasks.kept) / "tasks.json").read_text() == '{"tasks": []}'
    assert not (jail.workspace / ".vscode").exists()


async def test_with_two_workspaces_each_entry_is_named_in_its_own(jail: Jail, tmp_path: Path) -> None:
    """The same name planted in the second workspace: its row, its card and the model's note name
    that workspace, not a path that reads as the first's (where the command ran)."""
    second = jail.base / "second"
    second.mkdir()
    dispatcher, _schemas, _settings = make_engine(tmp_path, tool_with())
    scope = Scope(label="conversation", workspace_roots=(jail.workspace, second))
    command = f"mkdir {second}/.vscode && printf '{{\"tasks\": []}}' > {second}/.vscode/tasks.json"
    try:
        envelope = await dispatcher.execute_tool(
            ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": command})), scope,
            ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
        assert envelope.ok and envelope.metadata["sandbox"]["sandboxed"] is True, envelope.content
        assert dispatcher.audit is not None
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    [audited] = planted_of(row["planted"])
    assert audited.path == str(second / ".vscode")
    [carded] = planted_of(envelope.metadata["sandbox"]["planted"])
    assert carded.full() == str(second / ".vscode")
    assert f"{second}/.vscode" in envelope.content  # the model's note
    assert not (second / ".vscode").exists() and (jail.workspace / "README").exists()


async def test_many_plants_reach_the_model_named_a_few_with_the_total(jail: Jail, tmp_path: Path) -> None:
    """A real sandboxed command that plants an ``.envrc`` in each of 30 folders: the model reads
    ``MOST_NAMED`` of them and the total (before, every one), the audit row keeps all 30."""
    dispatcher, _schemas, _settings = make_engine(tmp_path, tool_with())
    scope = Scope(label="conversation", workspace_roots=(jail.workspace,))
    command = "for i in $(seq 10 39); do mkdir d$i && echo 'echo ran' > d$i/.envrc; done"
    try:
        envelope = await dispatcher.execute_tool(
            ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": command})), scope,
            ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
        assert dispatcher.audit is not None
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    assert envelope.ok and envelope.metadata["sandbox"]["sandboxed"] is True, envelope.content
    told = envelope.to_text()
    assert told.count("/.envrc (created)") == MOST_NAMED and f"and {30 - MOST_NAMED} more (30 in all" in told
    assert len(planted_of(row["planted"])) == 30
    assert not any((jail.workspace / f"d{i}" / ".envrc").exists() for i in range(10, 40))
