from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.scope import Scope


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def scope(workspace: Path) -> Scope:
    return Scope(label="conversation", workspace_roots=(workspace,), hidden={"user_id": "u-42"})


@pytest.fixture
def host() -> ScriptedHost:
    return ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)


@pytest.fixture
def engines() -> Iterator[list]:
    made: list = []
    yield made
    for dispatcher in made:
        dispatcher.close()
        if dispatcher.audit:
            dispatcher.audit.close()
