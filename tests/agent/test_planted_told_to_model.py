"""What the model reads when a sandbox put aside thousands of planted files: through the real
dispatcher, conversation session and SQLite stores, the tool message the model gets (and the
conversation keeps) names a few and says the total, for a command's note (``run_command``) and a
sandboxed MCP server's (``mcp.results.with_planted``), answered or failed; the call's audit row is
bounded too and says the total. Before, every path went to the model, the store and the row."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.session import ConversationSession
from echo_desk.builtins.shell import command_sandbox
from echo_desk.mcp.results import with_planted
from echo_desk.store.audit import MOST_AUDITED
from echo_desk.store.conversations import ConversationStore
from echo_desk.tools import ErrorKind, Tool, ToolExecutionContext, ToolResult
from echo_desk.tools.planted import Change, Planted, more_of, planted_of
from echo_desk.tools.planted_told import MOST_NAMED
from tests.agent.fake_model import ScriptedModel, calls, say
from tests.agent.fakes import make_engine

MANY = 10_000
#: What the model may read of one such call, the command's output and the advice included.
MOST_TOLD_CHARS = 4_000


def _plants(count: int) -> tuple[Planted, ...]:
    return tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED, kept=f"/data/put-aside/1/ws/pkg{i:05}/.envrc")
                 for i in range(count))


class Plants(Tool):
    """A sandboxed call whose check put aside ``planted``, told as ``how`` tells it."""

    name = "plants"
    description = "Run."
    parameters = {"type": "object", "properties": {}}

    def __init__(self, planted: tuple[Planted, ...], how: str) -> None:
        self.planted, self.how = planted, how

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        if self.how == "command":
            meta: dict[str, object] = {}
            note = command_sandbox.planted_facts(self.planted, SimpleNamespace(search_cut=False, links_cut=()),  # type: ignore[arg-type]
                                                 meta)
            return ToolResult.ok(f"exit code 0\n{note}", metadata={"sandbox": meta}, planted=self.planted,
                                 planted_in="/home/me/ws")
        answered = ToolResult.ok("done") if self.how == "server" else ToolResult.fail(ErrorKind.BUSINESS, "failed")
        return with_planted(answered, self.planted, folder="/home/me/ws")


def _turn(tmp_path: Path, tool: Plants) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """The tool message the model read after the call, the envelope the conversation kept, and the audit rows."""
    dispatcher, factory, _settings = make_engine(tmp_path, tool)
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        session = ConversationSession(store)
        conversation = store.create("", str(tmp_path))
        session.open(conversation)
        session.add_user("run it")
        model = ScriptedModel([calls(("c1", "plants", "{}")), say("Done.")])
        outcome = asyncio.run(session.run_turn(model, dispatcher, factory, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE),
                                               max_turns=3))
        assert outcome.completed
        told = model.seen[1][0][-1]
        assert told.role == "tool"
        [kept] = [m.envelope for m in store.messages(conversation.id) if m.message.role == "tool"]
        assert kept is not None
        assert dispatcher.audit is not None
        rows = dispatcher.audit.query(tool="plants")
    finally:
        dispatcher.close()
        if dispatcher.audit is not None:
            dispatcher.audit.close()
        store.close()
    return told.content, kept, rows


HOWS = ["command", "server", "failed server call"]


@pytest.mark.parametrize("how", HOWS)
def test_ten_thousand_planted_files_reach_the_model_named_a_few_with_the_total(tmp_path: Path, how: str) -> None:
    told, kept, [row] = _turn(tmp_path, Plants(_plants(MANY), how))
    assert len(told) < MOST_TOLD_CHARS, told[:500]
    assert f"and {MANY - MOST_NAMED:,} more ({MANY:,} in all" in told
    assert told.count("/.envrc (created") == MOST_NAMED and "do not try to work around this" in told
    assert len(json.dumps(kept)) < MOST_TOLD_CHARS + 1_000  # (the conversation keeps what the model read)
    # The audit row keeps a bounded few, and how many it left out of how many.
    column = row["planted"]
    assert len(planted_of(column)) == MOST_AUDITED and more_of(column) == MANY - MOST_AUDITED
    assert column[-1] == {"more": MANY - MOST_AUDITED, "total": MANY}
    assert len(json.dumps(column)) < 200_000


@pytest.mark.parametrize("how", HOWS)
def test_a_few_planted_files_are_all_named_to_the_model_and_all_audited(tmp_path: Path, how: str) -> None:
    planted = _plants(3)
    told, _kept, [row] = _turn(tmp_path, Plants(planted, how))
    assert all(f"{p.path} (created" in told for p in planted) and "more" not in told
    assert [p.path for p in planted_of(row["planted"])] == [f"/home/me/ws/{p.path}" for p in planted]
    assert more_of(row["planted"]) == 0
