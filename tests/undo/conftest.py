"""A real runtime (built-in file tools, SQLite change log, blob store) on a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path / "data",
                        with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def scope(workspace: Path) -> Scope:
    return Scope(label="conversation", workspace_roots=(workspace,))


@pytest.fixture
def host() -> ScriptedHost:
    return ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
