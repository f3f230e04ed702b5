"""A sandboxed ``run_command`` stopped while it runs (Stop, or its time limit) after it planted
something: what it left is still put aside, and its audit row and its card say so, as for a
command that ended on its own (a real bwrap, a real command that writes, then sleeps)."""

from __future__ import annotations

import asyncio
import json
import shlex
import time
from pathlib import Path

import pytest
from sandbox_helpers import Jail, requires_bwrap, tool_with

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.wiring import open_undo
from echo_desk.tools.planted import Change, planted_of
from echo_desk.tools.results import ErrorKind
from echo_desk.ui.chat.sandbox_card import planted_mark, sandbox_html, sandbox_of
from tests.agent.fake_model import ScriptedModel, calls
from tests.agent.fakes import make_engine

pytestmark = requires_bwrap

#: An editor's tasks that run when the folder is opened, then a long wait for the Stop.
PLANTS_THEN_WAITS = "mkdir .vscode && printf '{\"tasks\": []}' > .vscode/tasks.json && sleep 60"


class _Cards(NullListener):
    """What the chat's cards are given: each call's envelope."""

    def __init__(self) -> None:
        self.results: dict[str, Envelope] = {}

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        self.results[call_id] = envelope


async def _until(condition: Path, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not await asyncio.to_thread(condition.exists):
        assert time.monotonic() < deadline, f"{condition} did not appear"
        await asyncio.sleep(0.02)


def _kept_tasks(jail: Jail, planted: object) -> None:
    [tasks] = planted_of(planted)
    assert tasks.path == str(jail.workspace / ".vscode") and tasks.change is Change.CREATED
    assert (Path(tasks.kept) / "tasks.json").read_text() == '{"tasks": []}'
    assert not (jail.workspace / ".vscode").exists()


@pytest.mark.parametrize(("with_undo", "shell"), [(True, "bash"), (False, "bash"), (True, "dash")],
                         ids=["app", "no-undo", "dash"])
async def test_a_command_stopped_after_it_planted_has_its_plants_in_its_card_and_audit_row(
        jail: Jail, tmp_path: Path, with_undo: bool, shell: str) -> None:
    dispatcher, schemas, settings = make_engine(tmp_path, tool_with())
    if with_undo:  # as the app wires it (Revert's journal)
        dispatcher.undo, _reverter = open_undo(tmp_path / "data", settings)
    scope = Scope(label="conversation", workspace_roots=(jail.workspace,))
    # (Under dash too: what the command runs in its sandbox makes no difference to the check.)
    command = PLANTS_THEN_WAITS if shell == "bash" else f"dash -c {shlex.quote(PLANTS_THEN_WAITS)}"
    model = ScriptedModel([calls(("c1", "run_command", json.dumps({"command": command})))])
    cards = _Cards()
    turn = asyncio.create_task(AgentLoop(model, dispatcher, schemas, max_turns=2).run(
        [], scope, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE), cards))
    try:
        await _until(jail.workspace / ".vscode" / "tasks.json")
        turn.cancel()  # the person's Stop
        with pytest.raises(asyncio.CancelledError):
            await turn
        await dispatcher.recorded("run_command")
        assert dispatcher.audit is not None
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    assert row["ok"] == 0 and row["error_kind"] == "cancelled"
    _kept_tasks(jail, row["planted"])
    card = cards.results["c1"]
    assert not card.ok and card.error_kind is ErrorKind.CANCELLED
    [shown] = card.metadata["sandbox"]["planted"]
    assert shown["path"] == ".vscode" and shown["change"] == "created"
    assert "blocked" in card.model_error  # the model is told too
    facts = sandbox_of(card.metadata)  # what the chat's card shows of it, in its line and its header
    assert facts is not None and ".vscode (new: put aside)" in sandbox_html(facts)
    assert "⚠ 1 plant blocked" in planted_mark(facts.planted_count)


@pytest.mark.parametrize("limit", ["command", "tool"])
async def test_a_command_out_of_time_after_it_planted_has_its_plants_in_its_audit_row(
        jail: Jail, tmp_path: Path, limit: str) -> None:
    tool = tool_with()
    if limit == "tool":  # the dispatcher's own limit on the handler, not the command's
        tool.timeout_seconds = 2.0
    dispatcher, _schemas, _settings = make_engine(tmp_path, tool)
    scope = Scope(label="conversation", workspace_roots=(jail.workspace,))
    arguments = json.dumps({"command": PLANTS_THEN_WAITS, "timeout_seconds": 2 if limit == "command" else 60})
    try:
        envelope = await dispatcher.execute_tool(ToolCall(id="c1", name="run_command", arguments=arguments), scope,
                                                 ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
        await dispatcher.recorded("run_command")
        assert dispatcher.audit is not None
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    assert envelope.error_kind is ErrorKind.TIMEOUT
    _kept_tasks(jail, row["planted"])
    assert [p["path"] for p in envelope.metadata["sandbox"]["planted"]] == [".vscode"]
