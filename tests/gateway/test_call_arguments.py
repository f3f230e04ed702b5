"""A client's arguments reach the dispatcher as the gateway read them from its request: not
written out as JSON text and read back again, yet checked as any call's arguments are."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.pipeline import checks
from echo_desk.gateway.session import ClientSession
from echo_desk.mcp.tool import make_tool
from echo_desk.runtime import Runtime
from echo_desk.store import redact as redact_module
from echo_desk.store.redact import REDACTED
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import RiskLevel
from tests.gateway.canned_server import CannedServer
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


@pytest.fixture
def looked_at(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often the audit's redaction asked whether each key of a call's arguments is a secret's."""
    asked: Counter[str] = Counter()
    real = redact_module.is_secret_name

    def counting(name: str) -> bool:
        asked[name] += 1
        return real(name)

    monkeypatch.setattr(redact_module, "is_secret_name", counting)
    return asked


@pytest.mark.parametrize("values", [20, 2000], ids=["short: begun while the call runs", "long: on the writer"])
async def test_the_audit_walks_a_calls_arguments_once(runtime: Runtime, looked_at: Counter[str], values: int) -> None:
    """A client's many small values were copied by key, then walked again by shape and again to
    make them storable: 1 MB of them took the record ~0.5 s, which the call's answer waits for."""
    tool = make_tool(CannedServer(), registry_name="canned__take", server="canned",  # type: ignore[arg-type]
                     original_name="take", description="Takes anything.",
                     parameters={"type": "object", "properties": {"items": {"type": "array"}}}, title="",
                     annotations={}, definition_hash="sha256:x", hidden_characters=(), risk=RiskLevel.EXEC,
                     timeout=60.0)
    assert runtime.registry.register(tool, source="mcp:canned").ok
    runtime.settings.set_tool("canned__take", policy=ToolPolicy.ALWAYS)
    items = [{f"value_{i}": f"text {i}", "password": f"pw{i}", "note": f"token=sk-{'a' * 20}{i}"} for i in range(values)]
    result = await ClientSession(runtime, ScriptedHost(), "zed").call("canned__take", {"items": items})
    assert not result.get("isError"), result
    assert runtime.audit is not None
    (row,) = runtime.audit.query(tool="canned__take", client="zed")
    assert row["arguments"] == {"items": [{f"value_{i}": f"text {i}", "password": REDACTED, "note": f"token={REDACTED}"}
                                          for i in range(values)]}
    assert {looked_at[f"value_{i}"] for i in range(values)} == {1}
    assert looked_at["password"] == values
