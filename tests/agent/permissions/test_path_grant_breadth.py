"""A path grant offered in the dialog covers the path it names and nothing else: a file name
that reads as a pattern (``**``, trailing spaces, which gitignore drops) gets no grant offered
rather than one wider than what the person read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import GrantScope
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "config"), data_dir=tmp_path / "data",
                        with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


class TakesEveryGrant(ScriptedHost):
    """Allows, and takes the first path grant offered for this conversation."""

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        offered = request.rules.suggestions if request.rules is not None else ()
        return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding=request.binding,
                                suggestion=offered[0] if offered else None,
                                grant_scope=GrantScope.CONVERSATION if offered else None)


def _write(cid: str, path: str) -> ToolCall:
    return ToolCall(id=cid, name="write_file", arguments=json.dumps({"path": path, "content": "x\n"}))


@pytest.mark.parametrize(("named", "other"), [
    ("drafts/**", "drafts/contract.txt"),  # a file literally named "**"
    ("notes.txt ", "notes.txt"),  # gitignore drops a trailing space
    ("notes.txt\t", "notes.txt"),
])
async def test_a_grant_for_one_file_does_not_cover_another(runtime: Runtime, workspace: Path, named: str,
                                                           other: str) -> None:
    (workspace / "drafts").mkdir()
    scope = Scope(label="chat", workspace_roots=(workspace,))
    host = TakesEveryGrant()
    assert (await runtime.dispatcher.execute_tool(_write("c1", named), scope, host)).ok
    offered = host.requests[0].rules.suggestions if host.requests[0].rules is not None else ()
    env = await runtime.dispatcher.execute_tool(_write("c2", other), scope, host)
    assert env.ok, env.error
    # The second file was not what any grant named: the person is asked about it.
    assert len(host.requests) == 2, [s.pattern for s in offered]
