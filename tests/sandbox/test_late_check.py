"""A sandbox that still runs when its command ends (bwrap not reaped in time, a process the
kernel has not ended yet): what it leaves is checked when it ends, never skipped and never while
it may still write; the result says so."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.notes import NOTE_PREFIX
from echo_desk.builtins.shell import run_command
from echo_desk.sandbox import ending
from echo_desk.tools.planted import Change, planted_of
from echo_desk.ui.chat.card_parse import sandbox_of
from echo_desk.ui.chat.sandbox_card import planted_mark, sandbox_html, sandbox_lines
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import make_engine

pytestmark = requires_bwrap


async def test_a_sandbox_still_running_at_the_bound_is_checked_when_it_ends(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    real_gone = ending.gone
    still_running = asyncio.Event()

    async def gone_late(inside: ending.Inside | None, wait_seconds: float = ending.WAIT_SECONDS) -> bool:
        if not still_running.is_set():  # the first look at the bound: still running
            still_running.set()
            return False
        return await real_gone(inside, wait_seconds)

    monkeypatch.setattr(run_command.ending, "gone", gone_late)
    result = await run(tool_with(), {"command": "echo evil > .envrc"}, context(jail.workspace))
    assert result.success and "checked, and put aside or back, when they end" in result.output
    assert result.metadata["sandbox"]["checked_later"] is True
    facts = sandbox_of(result.metadata)
    assert facts is not None and any("still ran in the sandbox" in text for text, _colour in sandbox_lines(facts))

    deadline = asyncio.get_running_loop().time() + 30
    while (jail.workspace / ".envrc").exists():  # the late check puts it aside
        assert asyncio.get_running_loop().time() < deadline, "the late check never ran"
        await asyncio.sleep(0.05)
    assert not run_command._late_checks or all(t.done() for t in run_command._late_checks)


class _Cards(NullListener):
    """What the chat's cards are given: each call's envelope, and again once checked later."""

    def __init__(self) -> None:
        self.results: dict[str, Envelope] = {}
        self.checked: dict[str, Envelope] = {}

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        self.results[call_id] = envelope

    def on_checked_later(self, call_id: str, envelope: Envelope) -> None:
        self.checked[call_id] = envelope


async def test_a_stopped_command_checked_later_has_its_plants_in_its_audit_row_and_card(
        jail: Jail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real bwrap command that ignores the polite stop (``trap '' TERM``), stopped after it
    planted; its sandbox is taken as still running at the bound (what the kernel does not end in
    time: the one look that is made to say so), so what it left is found after its row went."""
    real_gone = ending.gone
    still_running = asyncio.Event()

    async def gone_late(inside: ending.Inside | None, wait_seconds: float = ending.WAIT_SECONDS) -> bool:
        if not still_running.is_set():
            still_running.set()
            return False
        return await real_gone(inside, wait_seconds)

    monkeypatch.setattr(run_command.ending, "gone", gone_late)
    dispatcher, schemas, _settings = make_engine(tmp_path, tool_with())
    scope = Scope(label="conversation", workspace_roots=(jail.workspace,))
    command = "trap '' TERM; mkdir .vscode && printf '{\"tasks\": []}' > .vscode/tasks.json && sleep 60"
    model = ScriptedModel([calls(("c1", "run_command", json.dumps({"command": command})))])
    cards = _Cards()
    turn = asyncio.create_task(AgentLoop(model, dispatcher, schemas, max_turns=2).run(
        [], scope, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE), cards))
    assert dispatcher.audit is not None
    try:
        deadline = time.monotonic() + 30
        while not (jail.workspace / ".vscode" / "tasks.json").exists():
            assert time.monotonic() < deadline, "the command did not plant"
            await asyncio.sleep(0.02)
        turn.cancel()  # the person's Stop
        with pytest.raises(asyncio.CancelledError):
            await turn
        await dispatcher.recorded("run_command")
        assert cards.results["c1"].metadata["sandbox"]["checked_later"] is True
        while "c1" not in cards.checked:  # the later check ran, and said so
            assert time.monotonic() < deadline, "the late check never told the card"
            await asyncio.sleep(0.02)
        [row] = dispatcher.audit.query(tool="run_command")
    finally:
        dispatcher.close()
        dispatcher.audit.close()
    [tasks] = planted_of(row["planted"])
    assert tasks.path == str(jail.workspace / ".vscode") and tasks.change is Change.CREATED
    assert (Path(tasks.kept) / "tasks.json").read_text() == '{"tasks": []}'
    assert not (jail.workspace / ".vscode").exists()
    assert row["error_kind"] == "cancelled"
    checked = cards.checked["c1"]
    assert checked.later_check is None and [p.path for p in checked.planted] == [".vscode"]
    facts = sandbox_of(checked.metadata)  # the card, shown again from it
    assert facts is not None and not facts.checked_later and ".vscode (new: put aside)" in sandbox_html(facts)
    assert "⚠ 1 plant blocked" in planted_mark(facts.planted_count)


async def test_what_a_real_late_check_put_aside_is_told_to_the_model_at_its_next_exchange(
        jail: Jail, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real bwrap command plants ``.envrc``; its sandbox is taken as still running at the bound,
    so its result tells the model only that it is checked when it ends. Once that check put the
    file aside, the model's next exchange opens with a note that names it (s339; before, only the
    card and the audit row heard of it)."""
    real_gone = ending.gone
    still_running = asyncio.Event()

    async def gone_late(inside: ending.Inside | None, wait_seconds: float = ending.WAIT_SECONDS) -> bool:
        if not still_running.is_set():
            still_running.set()
            return False
        return await real_gone(inside, wait_seconds)

    monkeypatch.setattr(run_command.ending, "gone", gone_late)
    dispatcher, schemas, _settings = make_engine(tmp_path, tool_with())
    scope = Scope(label="conversation", conversation_id="conv-1", workspace_roots=(jail.workspace,))
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    first = ScriptedModel([calls(("c1", "run_command", json.dumps({"command": "echo evil > .envrc"}))), say("Done.")])
    cards = _Cards()
    try:
        outcome = await AgentLoop(first, dispatcher, schemas, max_turns=2).run([], scope, host, cards)
        assert "checked, and put aside or back, when they end" in outcome.envelopes["c1"].content
        deadline = time.monotonic() + 30
        while "c1" not in cards.checked:
            assert time.monotonic() < deadline, "the late check never ended"
            await asyncio.sleep(0.02)
        assert not (jail.workspace / ".envrc").exists()
        history = [*outcome.messages, ChatMessage(role="user", content="and now?")]
        second = ScriptedModel([say("Noted.")])
        await AgentLoop(second, dispatcher, schemas, max_turns=2).run(history, scope, host, NullListener())
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
    [note] = [m.content for m in second.seen[0][0] if m.content.startswith(NOTE_PREFIX)]
    assert f"{jail.workspace}/.envrc (created; moved to " in note and "run_command c1" in note
