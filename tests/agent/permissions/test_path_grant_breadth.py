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


def _call(cid: str, tool: str, **arguments: str) -> ToolCall:
    return ToolCall(id=cid, name=tool, arguments=json.dumps(arguments))


async def test_a_grant_for_one_file_does_not_cover_a_folder_made_in_its_place(runtime: Runtime,
                                                                            workspace: Path) -> None:
    """The grant offered for writing ``notes.txt`` is ``@workspace/notes.txt``. Read as gitignore
    reads it, it also matches everything in a folder of that name: the agent deletes the file,
    makes the folder (both the path the grant names) and fills it with a ``conftest.py`` the
    person's next ``pytest`` runs. A grant for one path covers that path only."""
    scope = Scope(label="chat", workspace_roots=(workspace,))
    host = TakesEveryGrant()
    assert (await runtime.dispatcher.execute_tool(_write("c1", "notes.txt"), scope, host)).ok
    assert [s.pattern for s in host.requests[0].rules.suggestions] == ["@workspace/notes.txt"]  # type: ignore[union-attr]
    assert (await runtime.dispatcher.execute_tool(_call("c2", "delete_path", path="notes.txt"), scope, host)).ok
    assert (await runtime.dispatcher.execute_tool(_call("c3", "create_folder", path="notes.txt"), scope, host)).ok
    assert len(host.requests) == 1  # the grant covers the path it names, file or folder
    env = await runtime.dispatcher.execute_tool(_write("c4", "notes.txt/conftest.py"), scope, host)
    assert env.ok, env.error
    assert len(host.requests) == 2  # asked: nothing the person granted names this file
