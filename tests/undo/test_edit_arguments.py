"""Editing the arguments before approving: the edited call is validated and previewed again,
only that re-previewed version can be approved, the model is told, the audit keeps both."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.revision import RevisionRefused
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime


@dataclass
class EditingHost(ScriptedHost):
    """Edits the arguments, then approves either the re-previewed request or (``stale``) the first."""

    edit: dict[str, Any] | None = None
    stale: bool = False

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        assert request.revise is not None
        shown = await request.revise(self.edit or {})
        self.requests.append(shown)
        answer = request if self.stale else shown
        return ApprovalDecision(call_id=answer.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding=answer.binding)


def _call(content: str) -> ToolCall:
    return ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": "f.txt", "content": content}))


async def test_the_edited_call_is_previewed_again_and_runs(runtime: Runtime, scope: Scope, workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text("old\n")
    host = EditingHost(edit={"path": "g.txt", "content": "the person's text\n"})
    env = await runtime.dispatcher.execute_tool(_call("model text\n"), scope, host)
    assert env.ok, env.error
    first, second = host.requests
    assert first.targets[0].value == str(target) and second.targets[0].value == str(workspace / "g.txt")
    assert second.binding != first.binding and "the person's text" in second.file_changes[0].diff
    assert target.read_text() == "old\n" and (workspace / "g.txt").read_text() == "the person's text\n"
    assert env.content.startswith("The person edited the arguments") and "g.txt" in env.content.splitlines()[0]
    [record] = runtime.audit.query(tool="write_file")
    assert "model text" in json.dumps(record["arguments"])  # the model's arguments...
    assert "the person's text" in record["provenance"] and "edited by the person" in record["provenance"]


async def test_approving_the_stale_binding_writes_nothing(runtime: Runtime, scope: Scope, workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text("old\n")
    host = EditingHost(edit={"path": "f.txt", "content": "edited\n"}, stale=True)
    env = await runtime.dispatcher.execute_tool(_call("model text\n"), scope, host)
    assert not env.ok and env.error_kind is not None and env.error_kind.value == "rejected"
    assert target.read_text() == "old\n"


async def test_bad_edits_are_refused_with_a_reason(runtime: Runtime, scope: Scope, workspace: Path) -> None:
    (workspace / "f.txt").write_text("old\n")
    reasons: list[str] = []

    @dataclass
    class BadEdits(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            assert request.revise is not None
            for bad in ({"path": "f.txt"}, {"path": "../outside.txt", "content": "x"},
                        {"path": "f.txt", "content": "x", "user_id": "me"}):
                with pytest.raises(RevisionRefused) as caught:
                    await request.revise(bad)
                reasons.append(str(caught.value))
            return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding=request.binding)

    env = await runtime.dispatcher.execute_tool(_call("model\n"), scope, BadEdits())
    assert env.ok and (workspace / "f.txt").read_text() == "model\n"  # the model's call, as first shown
    assert "content" in reasons[0] and "outside the workspace" in reasons[1] and "supplied by the application" in reasons[2]
