"""A client's arguments reach the dispatcher as the gateway read them from its request: not
written out as JSON text and read back again, yet checked as any call's arguments are."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.pipeline import checks
from echo_desk.gateway.session import ClientSession
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from tests.gateway.conftest import allow_builtins


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    store = SettingsStore.in_dir(tmp_path / "config")
    allow_builtins(store, "zed")
    return Runtime.create(settings_store=store, data_dir=tmp_path / "data", with_plugins=False)


@pytest.fixture
def read_again(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each time the dispatcher reads a call's arguments from their text."""
    readings: list[object] = []
    real = checks.read_json

    def counting(text: object) -> object:
        readings.append(text)
        return real(text)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "read_json", counting)
    return readings


async def test_a_clients_arguments_are_not_read_again(runtime: Runtime, read_again: list[object]) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    arguments = {"text": "hi " * 60}
    result = await session.call("echo_text", arguments)
    assert not result.get("isError"), result
    assert result["content"][0]["text"] == arguments["text"]
    assert read_again == []
    assert arguments == {"text": "hi " * 60}  # the client's own dict is left as it came


async def test_arguments_the_schema_refuses_are_refused_all_the_same(runtime: Runtime, read_again: list[object]) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    result = await session.call("echo_text", {"text": ["not", "a", "string"]})
    assert result["isError"] and result["structuredContent"]["error_kind"] == "validation"
    assert read_again == []


async def test_the_audit_keeps_the_arguments_as_before(runtime: Runtime) -> None:
    session = ClientSession(runtime, ScriptedHost(), "zed")
    result = await session.call("echo_text", {"text": "kept"})
    assert not result.get("isError"), result
    assert runtime.audit is not None
    (row,) = runtime.audit.query(tool="echo_text", client="zed")
    assert row["arguments"] == {"text": "kept"} and row["ok"]
