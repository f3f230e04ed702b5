"""A plugin sees what the engine tells a tool through the typed context alone: the person's own
approval of a protected target and the hunks they kept (no string-keyed side door, no import of
the engine or of the built-ins)."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.common.hunks import bind_selection
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import ErrorKind, ToolError, ToolExecutionContext
from tests.tools.notes_plugin import EditNote

PLUGIN = Path(__file__).with_name("notes_plugin.py")
OLD = "".join(f"line {i}\n" for i in range(40))
NEW = OLD.replace("line 2\n", "two\n").replace("line 20\n", "twenty\n").replace("line 37\n", "thirty-seven\n")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = (tmp_path / "ws").resolve()
    (ws / ".git").mkdir(parents=True)
    return ws


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path / "data",
                        with_builtins=False, with_plugins=False, extra_tools=[EditNote()])
    yield rt
    rt.close()


@dataclass
class KeepingHost(ScriptedHost):
    """Allows, keeping the hunks ``keep`` (positions among the hunks shown) of every file shown."""

    keep: tuple[int, ...] = ()
    seen: list[ApprovalRequest] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.seen.append(request)
        selection = {change.path: tuple(change.hunks[i].id for i in self.keep) for change in request.file_changes}
        return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE,
                                binding=bind_selection(request.binding, selection), selection=selection,
                                message="not the middle one")


def _edit(path: str, cid: str = "c1") -> ToolCall:
    return ToolCall(id=cid, name="edit_note", arguments=json.dumps({"path": path, "text": NEW}))


def test_the_plugin_imports_nothing_of_echo_desk_but_the_public_contract() -> None:
    imported = {node.module for node in ast.walk(ast.parse(PLUGIN.read_text()))
                if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(ast.parse(PLUGIN.read_text()))
                 if isinstance(node, ast.Import) for alias in node.names}
    assert {m for m in imported if m.startswith("echo_desk")} == {"echo_desk.tools"}


async def test_a_protected_target_is_written_on_the_persons_own_approval(runtime: Runtime, workspace: Path) -> None:
    note = workspace / ".git" / "notes.txt"
    note.write_text(OLD)
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    envelope = await runtime.dispatcher.execute_tool(_edit(".git/notes.txt"), Scope(workspace_roots=(workspace,)),
                                                     host)
    assert envelope.ok, envelope.error
    assert note.read_text() == NEW
    assert [t.protections for t in host.requests[0].targets] != [()]


async def test_without_the_persons_own_approval_the_plugin_refuses_a_protected_target(workspace: Path) -> None:
    # What a rule or an "always allow" gives: the preview was made, nobody approved it by hand.
    note = workspace / ".git" / "notes.txt"
    note.write_text(OLD)
    tool, params = EditNote(), {"path": ".git/notes.txt", "text": NEW}
    ctx = ToolExecutionContext(call_id="c1", tool_name=tool.name, scope_id="s", workspace_roots=(workspace,),
                               write_roots=(workspace,))
    ctx.preview = await tool.preview(params, ctx)
    with pytest.raises(ToolError) as refused:
        await tool.execute(params, ctx)
    assert refused.value.kind is ErrorKind.BUSINESS and note.read_text() == OLD
    ctx.approved_by_person = True
    await tool.execute(params, ctx)
    assert note.read_text() == NEW


async def test_the_plugin_writes_only_the_hunks_the_person_kept(runtime: Runtime, workspace: Path) -> None:
    note = workspace / "notes.txt"
    note.write_text(OLD)
    host = KeepingHost(keep=(0, 2))
    envelope = await runtime.dispatcher.execute_tool(_edit("notes.txt"), Scope(workspace_roots=(workspace,)), host)
    assert envelope.ok, envelope.error
    assert host.seen[0].hunk_selectable and host.seen[0].file_changes[0].diff.count("\n@@") == 3
    assert note.read_text() == OLD.replace("line 2\n", "two\n").replace("line 37\n", "thirty-seven\n")
    assert "not the middle one" in envelope.content
