from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def scope(workspace: Path) -> Scope:
    return Scope(label="conversation", workspace_roots=(workspace,), hidden={"user_id": "u-42"})


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    """A real engine runtime without plugins, its settings and data in the test's folder."""
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "config"), data_dir=tmp_path,
                        with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    yield conversations
    conversations.close()


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
